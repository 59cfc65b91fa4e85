//! The emulated path: cclab-sim's own [`Link`]s, each flow's routes over them, and the hand-over
//! from one link to the next. The model never knows which clock drives it; the relay (or a
//! kernel-mode tun loop) calls [`Fabric::push`] when a packet arrives and [`Fabric::advance`]
//! at the times [`Fabric::next_wake`] names.

use cclab_core::time::Time;
use cclab_sim::link::Link;
use cclab_sim::packet::InFlight;
use cclab_sim::run::PathPlan;

/// Links and routes of one emulated path. Route `2f` is flow `f`'s forward route, `2f + 1` its
/// reverse route (the `route` of every [`InFlight`] pushed in).
pub struct Fabric {
    links: Vec<Link>,
    routes: Vec<Vec<usize>>,
    scratch: Vec<InFlight>,
}

impl Fabric {
    /// The fabric of `plan`, each link seeded as the simulator seeds it (the same seed draws
    /// the same losses, jitter and reordering in both modes).
    pub fn new(plan: &PathPlan, seed: u64) -> Fabric {
        let links = plan
            .links
            .iter()
            .enumerate()
            .map(|(i, l)| Link::new(i as u32, &l.config, seed))
            .collect();
        let routes = plan
            .routes
            .iter()
            .flat_map(|r| [r.forward.clone(), r.reverse.clone()])
            .collect();
        Fabric {
            links,
            routes,
            scratch: Vec::new(),
        }
    }

    /// The links, by index in the plan.
    pub fn links(&self) -> &[Link] {
        &self.links
    }

    /// `p` arrives at the start of its route at `now`; a packet whose route has no links is
    /// delivered at once into `out`.
    pub fn push(&mut self, now: Time, mut p: InFlight, out: &mut Vec<InFlight>) {
        p.hop = 0;
        match self.routes[p.route as usize].first() {
            // The fabric asks every link for `next_wake` in its loop: the merge hint is not needed.
            Some(&l) => {
                self.links[l].push(now, p);
            }
            None => {
                p.enqueued = now;
                out.push(p);
            }
        }
    }

    /// Runs every link due by `now`; packets that left the last link of their route go to
    /// `out`, each with its modelled release time in `enqueued`. A packet that leaves an inner
    /// link enters the next one at the modelled time it left, not at `now`, so a late wake-up
    /// does not add to the path's delay. Then every link's lazy serialiser catches up to `now`
    /// ([`Link::catch_up`]), so that queues and counters read between calls (the time series,
    /// drop counts) are those at `now`; every later push is at `now` or after (a packet still
    /// propagating arrives after `now`).
    pub fn advance(&mut self, now: Time, out: &mut Vec<InFlight>) {
        while let Some(l) = (0..self.links.len()).find(|&l| self.links[l].next_wake().is_some_and(|t| t <= now)) {
            let mut moved = std::mem::take(&mut self.scratch);
            self.links[l].act(now, &mut moved);
            for mut p in moved.drain(..) {
                match self.routes[p.route as usize].get(p.hop as usize + 1) {
                    Some(&next) => {
                        p.hop += 1;
                        let at = p.enqueued;
                        self.links[next].push(at, p);
                    }
                    None => out.push(p),
                }
            }
            self.scratch = moved;
        }
        for link in &mut self.links {
            link.catch_up(now);
        }
    }

    /// When a link next has something to do.
    pub fn next_wake(&self) -> Option<Time> {
        self.links.iter().filter_map(Link::next_wake).min()
    }
}

//! Tests of the network's own bookkeeping for many-flow warming (its runs are tested in `tests/`).

use super::*;
use crate::link::LinkRate;
use cclab_core::endpoint::{Endpoint, EndpointStats};
use cclab_core::wire::packet::Datagram;

/// An endpoint that never sends and is done at once.
struct Quiet;

impl Endpoint for Quiet {
    fn handle_datagram(&mut self, _now: Time, _dgram: Datagram) {}
    fn handle_timeout(&mut self, _now: Time) {}
    fn poll_transmit(&mut self, _now: Time) -> Option<Datagram> {
        None
    }
    fn poll_timeout(&self) -> Option<Time> {
        None
    }
    fn stats(&self) -> EndpointStats {
        EndpointStats::default()
    }
    fn is_done(&self) -> bool {
        true
    }
}

/// `WARM_MIN_FLOWS` flows with a host per endpoint (a dumbbell's), then two more sharing one host
/// pair: each host of one endpoint is warmed through the route that ends at it, the shared pair not
/// at all (which of their endpoints is due is not known ahead).
#[test]
fn warming_maps_each_single_endpoint_host_to_the_route_ending_at_it() {
    let mut net = Network::new();
    let cfg = LinkConfig::new(LinkRate::Unlimited, Dur(1000));
    let (fwd, back) = (net.add_link(&cfg, 1), net.add_link(&cfg, 1));
    let host = |net: &mut Network| net.add_host(&HostConfig::default(), 1);
    let (shared_s, shared_r) = (host(&mut net), host(&mut net));
    for f in 0..WARM_MIN_FLOWS + 2 {
        let (s, r) = if f < WARM_MIN_FLOWS {
            (host(&mut net), host(&mut net))
        } else {
            (shared_s, shared_r)
        };
        net.add_flow(FlowSpec {
            sender: AnyEndpoint::Custom(Box::new(Quiet)),
            receiver: AnyEndpoint::Custom(Box::new(Quiet)),
            sender_host: s,
            receiver_host: r,
            forward: vec![fwd],
            reverse: vec![back],
            start: Time::ZERO,
            trace: false,
        });
    }
    net.run(Time(1), None, &mut ());
    assert!(net.warming);
    for (h, &r) in net.host_routes.iter().enumerate() {
        if h == shared_s.0 as usize || h == shared_r.0 as usize {
            assert_eq!(r, NO_ROUTE, "host {h} has two endpoints");
            continue;
        }
        let route = &net.routes[r as usize];
        assert_eq!(route.host as usize, h, "host {h}: route {r} ends elsewhere");
        let slot = &net.hosts[h].slots()[route.slot as usize];
        // The route's warming addresses are the endpoint this host runs.
        assert_eq!(route.slot_at, slot as *const _ as usize, "host {h}");
        assert_eq!(route.endpoint_at, slot.endpoint.hot_bytes().0, "host {h}");
    }
}

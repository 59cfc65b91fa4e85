//! The links of a scenario and each flow's routes over them: what the simulator builds into a
//! [`Network`](crate::network::Network) and the real-time emulator drives on the wall clock.

use crate::link::LinkConfig;
use crate::scenario::ScenarioFile;

/// One direction of one link, in the order links are built (their index seeds their random streams).
#[derive(Clone, Debug)]
pub struct PlannedLink {
    /// The link's model.
    pub config: LinkConfig,
    /// Its key in the scenario (`path.forward`, `flow[2].access`, ...).
    pub name: String,
    /// `"forward"` (data) or `"reverse"` (ACKs).
    pub direction: &'static str,
}

/// A flow's routes, as indices into [`PathPlan::links`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FlowRoutes {
    /// Links from the sender's host to the receiver's, in order.
    pub forward: Vec<usize>,
    /// Links from the receiver's host back to the sender's, in order.
    pub reverse: Vec<usize>,
}

/// Every link of a scenario and every flow's routes.
#[derive(Clone, Debug)]
pub struct PathPlan {
    /// Links by index.
    pub links: Vec<PlannedLink>,
    /// Routes by flow index.
    pub routes: Vec<FlowRoutes>,
}

/// The path plan of a validated scenario: the shared forward and return links, then each
/// flow's access links (dumbbell) in flow order.
pub fn plan(file: &ScenarioFile) -> PathPlan {
    let mut links = vec![
        PlannedLink {
            config: file.path.forward.clone(),
            name: "path.forward".into(),
            direction: "forward",
        },
        PlannedLink {
            config: file.path.reverse.clone(),
            name: "path.return".into(),
            direction: "reverse",
        },
    ];
    let routes = file
        .flow
        .iter()
        .enumerate()
        .map(|(i, f)| {
            let (mut forward, mut reverse) = (vec![0], vec![1]);
            if let Some(access) = &f.access {
                for direction in ["forward", "reverse"] {
                    links.push(PlannedLink {
                        config: access.clone(),
                        name: format!("flow[{i}].access"),
                        direction,
                    });
                }
                forward.insert(0, links.len() - 2);
                reverse.push(links.len() - 1);
            }
            FlowRoutes { forward, reverse }
        })
        .collect();
    PathPlan { links, routes }
}

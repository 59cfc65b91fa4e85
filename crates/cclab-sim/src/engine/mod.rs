//! The discrete-event core: the event queue and the seeded random streams.

pub mod rng;
pub mod scheduler;

pub use rng::{derive_seed, stream_rng, Rng, Stream};
pub use scheduler::{ActorId, Scheduler};

//! cclab-kernel: kernel mode. A scenario's TCP flow as the Linux kernel's own TCP, between two
//! network namespaces the run creates, with every packet passing through tun devices into the
//! same real-time emulator (cclab-sim's links on the wall clock) that real mode uses.
//!
//! It models nothing: the transport is the kernel's, the path is the simulator's link model.
//! Layers:
//! - [`netns`]: anonymous network namespaces held by file descriptors, and threads that enter them.
//! - [`tun`]: a point-to-point tun device inside a namespace, configured by ioctl.
//! - [`tcp_info`]: the kernel's `struct tcp_info` and the mapping to cclab's time-series metrics.
//! - [`forward`]: the loop moving IP packets between the two tun devices through the emulator.
//! - [`run_kernel`]: one bulk transfer, writing the simulator's outputs with `mode: "kernel"`.
//!
//! Nothing outlives the process: namespaces and tun devices exist only while the run holds
//! their file descriptors, and the TCP endpoints are threads of the run, so the kernel removes
//! everything on every exit path (return, panic, Ctrl-C, SIGKILL). No names are registered in
//! `/run/netns` and no route leads out of either namespace.

pub mod forward;
pub mod netns;
mod run;
pub mod tcp_info;
pub mod tun;

pub use run::{notices, run_kernel, KernelError, KernelOptions, RECEIVER_ADDR, SENDER_ADDR};

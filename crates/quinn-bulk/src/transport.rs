//! Transport parameters for bulk transfer: large windows, the chosen controller, qlog per connection.

use crate::args::{Cc, Common};
use quinn::congestion::{BbrConfig, CubicConfig, NewRenoConfig};
use quinn::{QlogConfig, QlogStream, TransportConfig, VarInt};
use std::error::Error;
use std::fs::{self, File};
use std::io::BufWriter;
use std::sync::Arc;

/// A transport config for one connection. `qlog_name` names the file (`<name>.sqlog`) written
/// into `--qlog DIR` when that option is set.
pub(crate) fn transport_config(common: &Common, qlog_name: &str) -> Result<TransportConfig, Box<dyn Error>> {
    let mut config = TransportConfig::default();
    // quinn's defaults (1.25 MB stream window) cap a transfer at window/RTT; a bulk peer must fill
    // Gbit/s paths with tens of ms RTT, so the windows default to 64 MiB (BDP of 5 Gbit/s × 100 ms).
    let window = VarInt::from_u64(common.window)?;
    config
        .stream_receive_window(window)
        .receive_window(window)
        .send_window(common.window)
        .max_concurrent_uni_streams(0u8.into())
        .max_idle_timeout(Some(common.idle_timeout.try_into()?));
    match common.cc {
        Cc::Cubic => config.congestion_controller_factory(Arc::new(CubicConfig::default())),
        Cc::NewReno => config.congestion_controller_factory(Arc::new(NewRenoConfig::default())),
        Cc::Bbr => config.congestion_controller_factory(Arc::new(BbrConfig::default())),
    };
    if let Some(dir) = &common.qlog_dir {
        config.qlog_stream(Some(qlog_stream(dir, qlog_name)?));
    }
    Ok(config)
}

/// A qlog stream into `dir/<name>.sqlog`, buffered; the buffer is flushed when the connection
/// and its config are dropped, which both sides do before they exit.
fn qlog_stream(dir: &std::path::Path, name: &str) -> Result<QlogStream, Box<dyn Error>> {
    fs::create_dir_all(dir).map_err(|e| format!("--qlog: cannot create {}: {e}", dir.display()))?;
    let path = dir.join(format!("{name}.sqlog"));
    let file = File::create(&path).map_err(|e| format!("--qlog: cannot create {}: {e}", path.display()))?;
    let mut config = QlogConfig::default();
    config
        .writer(Box::new(BufWriter::with_capacity(1 << 16, file)))
        .title(Some(format!("quinn-bulk {name}")));
    config
        .into_stream()
        .ok_or_else(|| format!("--qlog: cannot start the qlog stream in {}", path.display()).into())
}

//! cclab-udp (being written).

//! cclab-sim (being written).

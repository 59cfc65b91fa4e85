//! cclab-py (being written).

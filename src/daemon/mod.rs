//! The daemon: polling the forum, resuming after crashes, reports at 关门.

//! The project's own Discuz!-shaped test forum on 127.0.0.1, driven by tests and the demo.

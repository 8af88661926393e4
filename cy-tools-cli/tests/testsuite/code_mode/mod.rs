//! Code mode on a control-server process (the binary): a hostile client or session attacking
//! the code-mode endpoint, and another user swapping the `cy_sdk` package of a running host.

mod attacks;
mod package_swap;
mod server_process;

//! The command line never freezes and always stops, whatever a call is stuck on: a FIFO, a
//! sleeping command, a run on the control server (`fifo`), or a tool that blocks its thread
//! (`blocking`). Checked on the application binary, `cy-tools-app`, which links the tools that
//! block.

mod blocking;
mod fifo;
mod harness;
mod http;

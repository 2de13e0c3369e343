//! hybridgen: plan, lint and render hybrid Linux + Windows Kubernetes clusters on flannel.
//!
//! The pipeline: `load` (YAML → JSON value + spans) → `schema` (HG002) → `spec` (typed) →
//! `plan` (addresses, subnets, routes) → `rules` (findings) → `report` (human, json, sarif, github);
//! `render` writes artifacts from the plan, `verify` reads kubectl captures into `live`, which
//! `rules::live` compares with the plan. `cli` parses the command line and `commands` runs each
//! command.

// Errors travel as values: a spec from a pull request must never crash the linter.
#![cfg_attr(
    not(test),
    deny(clippy::unwrap_used, clippy::expect_used, clippy::panic)
)]

pub mod change;
pub mod cli;
pub mod commands;
pub mod diagnostic;
pub mod escape;
pub mod input_file;
pub mod live;
pub mod load;
pub mod pipeline;
pub mod plan;
pub mod redact;
pub mod render;
pub mod report;
pub mod rules;
pub mod schema;
pub mod source;
pub mod spec;
pub mod suggest;
pub mod suppressions;
pub mod verify;

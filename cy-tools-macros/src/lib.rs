//! The `#[tool]` attribute for `cy-tools`. Use it through `cy_tools::tool`.

//! Built-in tools and backends for `cy-tools`.

//! The suite's resources: fixed text and bytes, a URI template, and one a client watches.

use cy_tools::Json;
use cy_tools::catalog::{ResourceUpdates, resource};
use cy_tools::prelude::*;

use crate::content::PNG;

/// The URI of the resource whose changes subscribers hear.
pub const WATCHED: &str = "test://watched-resource";

/// A fixed text resource.
#[resource(
    uri = "test://static-text",
    mime_type = "text/plain",
    title = "Static text"
)]
async fn static_text() -> &'static str {
    "This is the content of the static text resource."
}

/// A fixed binary resource: a small PNG image.
#[resource(uri = "test://static-binary", mime_type = "image/png")]
async fn static_binary() -> Vec<u8> {
    PNG.to_vec()
}

/// The data of one item, by id: a URI template whose `{id}` is the function's argument.
#[resource(uri = "test://template/{id}/data", mime_type = "application/json")]
async fn template_data(
    /** The item's id. */
    id: String,
) -> Json<serde_json::Value> {
    Json(serde_json::json!({"id": id, "templateTest": true, "data": format!("Data for ID: {id}")}))
}

/// A resource a client may subscribe to: `test_update_watched_resource` says it changed.
#[resource(uri = "test://watched-resource", mime_type = "text/plain")]
async fn watched_resource() -> &'static str {
    "This resource is watched; subscribers hear when it changes."
}

/// Says the watched resource changed, so its subscribers are told.
#[tool(idempotent, open_world = false)]
async fn test_update_watched_resource(updates: State<'_, ResourceUpdates>) -> &'static str {
    updates.updated(WATCHED);
    "test://watched-resource changed; subscribers were told"
}

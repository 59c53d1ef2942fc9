//! Ways of looking at how a material works that need both the document and the renderer
//! (the A/B compare of `render --compare`, the bake of `export --bake`). The CLI only parses and dispatches to here.

pub mod bake;
pub mod compare;

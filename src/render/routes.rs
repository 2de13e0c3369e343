//! (being written) The routes artifacts.

use super::{Artifact, Input, RenderError};

pub fn render(_input: &Input) -> Result<Vec<Artifact>, RenderError> {
    Ok(Vec::new())
}

//! (being written) The windows artifacts.

use super::{Artifact, Input, RenderError};

pub fn render(_input: &Input) -> Result<Vec<Artifact>, RenderError> {
    Ok(Vec::new())
}

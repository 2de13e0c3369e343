//! `hybridgen man`: the manual page, in roff.

use super::{Outcome, complain, emit};

pub fn run(command: clap::Command) -> Outcome {
    let mut page = Vec::new();
    match clap_mangen::Man::new(command).render(&mut page) {
        Ok(()) => emit(&String::from_utf8_lossy(&page), Outcome::Clean),
        Err(error) => {
            complain(&format!("cannot render the manual page: {error}"));
            Outcome::Unusable
        }
    }
}

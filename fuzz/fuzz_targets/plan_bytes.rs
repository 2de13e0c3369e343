//! Arbitrary bytes through the whole `plan` pipeline, and `render` in memory when it passes.
#![no_main]

use hybridgen::{pipeline, render};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let checked = pipeline::check("fuzz.yaml", data.to_vec());
    let reports = [hybridgen::report::FileReport::new(&checked, &checked.diagnostics)];
    let _ = hybridgen::report::json::render(&reports);
    if let (Some(spec), Some(plan)) = (&checked.spec, &checked.plan) {
        let secrets = render::Secrets::default();
        let _ = render::render_all(&render::Input { spec, plan, secrets: &secrets });
    }
});

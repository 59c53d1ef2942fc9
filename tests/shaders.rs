//! Every hand-written shader in `shaders/` parses and validates with naga on its own
//! (generated WGSL is validated where it is generated, in `gx::wgsl`).

#[test]
fn every_shader_in_the_folder_validates() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("shaders");
    let mut checked = Vec::new();
    for entry in std::fs::read_dir(&dir).expect("shaders/ exists") {
        let path = entry.expect("readable entry").path();
        if path.extension().is_none_or(|e| e != "wgsl") {
            continue;
        }
        let text = std::fs::read_to_string(&path).expect("readable shader");
        let module = naga::front::wgsl::parse_str(&text)
            .unwrap_or_else(|e| panic!("{}: {}", path.display(), e.emit_to_string(&text)));
        naga::valid::Validator::new(
            naga::valid::ValidationFlags::all(),
            naga::valid::Capabilities::all(),
        )
        .validate(&module)
        .unwrap_or_else(|e| panic!("{}: {e:?}", path.display()));
        checked.push(path);
    }
    assert!(
        checked.len() >= 3,
        "expected the project's shaders, found {checked:?}"
    );
}

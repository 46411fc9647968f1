//! The README's examples stay true: its fault plan parses.

#[test]
fn the_readme_fault_plan_parses() {
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
    let start = readme.find("```yaml\n").expect("a yaml block") + "```yaml\n".len();
    let end = start + readme[start..].find("```").unwrap();
    let plan = clawrun::faults::plan_from_yaml(
        &readme[start..end],
        "README.md",
        &clawrun::faults::LoadOptions::new(0),
    )
    .unwrap();
    assert_eq!(plan.rules().len(), 2);
}

//! The file types accepted by Grep's `type` argument (a subset of ripgrep's defaults).

/// `(type name, file-name globs)`, sorted by name.
pub const FILE_TYPES: &[(&str, &[&str])] = &[
    ("c", &["*.[chH]", "*.[chH].in", "*.cats"]),
    (
        "cpp",
        &[
            "*.[ChH]",
            "*.cc",
            "*.[ch]pp",
            "*.[ch]xx",
            "*.hh",
            "*.inl",
            "*.[ChH].in",
            "*.cc.in",
        ],
    ),
    ("cs", &["*.cs"]),
    ("css", &["*.css", "*.scss"]),
    ("csv", &["*.csv"]),
    ("dart", &["*.dart"]),
    ("docker", &["*Dockerfile*"]),
    ("elixir", &["*.ex", "*.eex", "*.exs", "*.heex", "*.leex"]),
    ("go", &["*.go"]),
    ("h", &["*.h", "*.hh", "*.hpp"]),
    ("haskell", &["*.hs", "*.lhs"]),
    ("html", &["*.htm", "*.html", "*.ejs"]),
    ("java", &["*.java", "*.jsp", "*.jspx", "*.properties"]),
    ("js", &["*.js", "*.jsx", "*.vue", "*.cjs", "*.mjs"]),
    ("json", &["*.json", "composer.lock", "*.sarif"]),
    ("jsonl", &["*.jsonl"]),
    ("kotlin", &["*.kt", "*.kts"]),
    ("lua", &["*.lua"]),
    (
        "make",
        &[
            "[Gg][Nn][Uu]makefile",
            "[Mm]akefile",
            "*.mk",
            "*.mak",
            "[Mm]akefile.am",
            "[Mm]akefile.in",
        ],
    ),
    (
        "markdown",
        &[
            "*.markdown",
            "*.md",
            "*.mdown",
            "*.mdwn",
            "*.mkd",
            "*.mkdn",
            "*.mdx",
        ],
    ),
    (
        "md",
        &[
            "*.markdown",
            "*.md",
            "*.mdown",
            "*.mdwn",
            "*.mkd",
            "*.mkdn",
            "*.mdx",
        ],
    ),
    (
        "php",
        &[
            "*.php", "*.php3", "*.php4", "*.php5", "*.php7", "*.php8", "*.phtml",
        ],
    ),
    ("proto", &["*.proto"]),
    ("py", &["*.py", "*.pyi"]),
    ("python", &["*.py", "*.pyi"]),
    ("r", &["*.R", "*.r", "*.Rmd", "*.Rnw"]),
    (
        "rb",
        &[
            "Gemfile",
            "*.gemspec",
            ".irbrc",
            "Rakefile",
            "*.rb",
            "*.rbw",
        ],
    ),
    (
        "ruby",
        &[
            "Gemfile",
            "*.gemspec",
            ".irbrc",
            "Rakefile",
            "*.rb",
            "*.rbw",
        ],
    ),
    ("rust", &["*.rs"]),
    ("scala", &["*.scala", "*.sbt"]),
    (
        "sh",
        &[
            "*.sh",
            "*.bash",
            "*.zsh",
            "*.ksh",
            "*.csh",
            ".bashrc",
            ".bash_profile",
            ".zshrc",
            ".profile",
        ],
    ),
    ("sql", &["*.sql", "*.psql"]),
    ("svelte", &["*.svelte"]),
    ("swift", &["*.swift"]),
    ("tf", &["*.tf", "*.tfvars"]),
    ("toml", &["*.toml", "Cargo.lock"]),
    ("ts", &["*.ts", "*.tsx", "*.cts", "*.mts"]),
    ("txt", &["*.txt"]),
    ("typescript", &["*.ts", "*.tsx", "*.cts", "*.mts"]),
    ("vue", &["*.vue"]),
    (
        "xml",
        &[
            "*.xml",
            "*.xml.dist",
            "*.dtd",
            "*.xsl",
            "*.xslt",
            "*.xsd",
            "*.xhtml",
        ],
    ),
    ("yaml", &["*.yaml", "*.yml"]),
    ("zig", &["*.zig"]),
];

/// The globs of type `name`, if known.
pub fn globs_for(name: &str) -> Option<&'static [&'static str]> {
    FILE_TYPES
        .iter()
        .find(|(type_name, _)| *type_name == name)
        .map(|(_, globs)| *globs)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_is_sorted_and_unique() {
        assert!(FILE_TYPES.windows(2).all(|w| w[0].0 < w[1].0));
    }

    #[test]
    fn every_glob_compiles() {
        for (_, globs) in FILE_TYPES {
            for glob in *globs {
                globset::Glob::new(glob).unwrap();
            }
        }
    }
}

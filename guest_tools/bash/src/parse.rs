//! Parsing shell text into an AST with `brush-parser`, and bash-style syntax error messages.

use brush_parser::{ParseError, Parser, ParserOptions, ast};

/// Parser options used everywhere: bash mode, extended globs off (agents rarely use them and
/// `!(...)` would otherwise change the meaning of some words).
pub fn options() -> ParserOptions {
    ParserOptions {
        enable_extended_globbing: false,
        ..ParserOptions::default()
    }
}

/// Parses a whole script. On failure returns the message bash prints (without the `bash: `
/// prefix), e.g. ``syntax error near unexpected token `)'``.
pub fn parse_program(src: &str) -> Result<ast::Program, String> {
    let opts = options();
    let mut parser = Parser::new(std::io::BufReader::new(src.as_bytes()), &opts);
    parser.parse_program().map_err(|e| describe(src, &e))
}

fn describe(src: &str, err: &ParseError) -> String {
    match err {
        ParseError::ParsingNear(pos) => {
            let token = token_at(src, pos.index);
            format!("syntax error near unexpected token `{token}'")
        }
        ParseError::ParsingAtEndOfInput => "syntax error: unexpected end of file".to_owned(),
        ParseError::Tokenizing { inner, .. } => {
            let text = inner.to_string();
            if text.contains("double quote") {
                "unexpected EOF while looking for matching `\"'".to_owned()
            } else if text.contains("single quote") {
                "unexpected EOF while looking for matching `''".to_owned()
            } else if text.contains("backquote") || text.contains("backtick") {
                "unexpected EOF while looking for matching ``'".to_owned()
            } else if text.contains("parenthes") || text.contains("command substitution") {
                "unexpected EOF while looking for matching `)'".to_owned()
            } else {
                "syntax error: unexpected end of file".to_owned()
            }
        }
    }
}

/// The token text starting at byte `index` of `src`, as bash names it in error messages.
fn token_at(src: &str, index: usize) -> String {
    if let Ok(tokens) = brush_parser::tokenize_str(src) {
        for tok in &tokens {
            let (text, loc) = match tok {
                brush_parser::Token::Word(w, loc) | brush_parser::Token::Operator(w, loc) => {
                    (w, loc)
                }
            };
            if loc.start.index >= index {
                return if text == "\n" {
                    "newline".to_owned()
                } else {
                    text.clone()
                };
            }
        }
    }
    let rest = src.get(index..).unwrap_or("");
    match rest.chars().next() {
        None | Some('\n') => "newline".to_owned(),
        Some(c) => c.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reports_unexpected_token() {
        assert_eq!(
            parse_program("echo )").unwrap_err(),
            "syntax error near unexpected token `)'"
        );
        assert_eq!(
            parse_program("if true; then").unwrap_err(),
            "syntax error: unexpected end of file"
        );
        assert!(parse_program("echo a | grep b && ls; for x in 1 2; do echo $x; done").is_ok());
    }
}

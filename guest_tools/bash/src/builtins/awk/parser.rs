//! Recursive-descent parser for awk programs.

use super::lexer::Tok;

/// An lvalue.
#[derive(Debug, Clone)]
pub enum LValue {
    /// A scalar variable.
    Var(String),
    /// `$expr`.
    Field(Box<Expr>),
    /// `name[subscripts]`.
    Index(String, Vec<Expr>),
}

/// An expression.
#[derive(Debug, Clone)]
pub enum Expr {
    /// Numeric literal.
    Num(f64),
    /// String literal.
    Str(String),
    /// Regex literal (matches `$0` when used as a value).
    Regex(String),
    /// Variable, field or array element.
    Lv(LValue),
    /// Assignment with optional binary operator (`+=`).
    Assign(Option<&'static str>, LValue, Box<Expr>),
    /// Pre/post increment and decrement: (lvalue, delta, is_prefix).
    Incr(LValue, f64, bool),
    /// Binary arithmetic/comparison operator.
    Bin(&'static str, Box<Expr>, Box<Expr>),
    /// String concatenation.
    Concat(Box<Expr>, Box<Expr>),
    /// `&&` / `||`.
    Logic(bool, Box<Expr>, Box<Expr>),
    /// `!e`.
    Not(Box<Expr>),
    /// Unary minus / plus.
    Neg(Box<Expr>),
    /// Unary plus (numeric conversion).
    Plus(Box<Expr>),
    /// `e ~ re` / `e !~ re`.
    Match(bool, Box<Expr>, Box<Expr>),
    /// `c ? a : b`.
    Cond(Box<Expr>, Box<Expr>, Box<Expr>),
    /// `(subs) in array`.
    In(Vec<Expr>, String),
    /// Function call (builtin or user).
    Call(String, Vec<Expr>),
    /// `getline [var] [< file]` or `cmd | getline [var]`.
    Getline {
        /// Target variable.
        var: Option<LValue>,
        /// `< file`.
        file: Option<Box<Expr>>,
        /// `cmd |`.
        cmd: Option<Box<Expr>>,
    },
    /// A parenthesised expression list `(a, b)` (only valid before `in`).
    Group(Vec<Expr>),
}

/// Output redirection of print/printf.
#[derive(Debug, Clone)]
pub enum Redirect {
    /// `> file`.
    File(Expr),
    /// `>> file`.
    Append(Expr),
    /// `| cmd`.
    Pipe(Expr),
}

/// A statement.
#[derive(Debug, Clone)]
pub enum Stmt {
    /// Expression statement.
    Expr(Expr),
    /// `print exprs [redirect]`.
    Print(Vec<Expr>, Option<Redirect>),
    /// `printf fmt, exprs [redirect]`.
    Printf(Vec<Expr>, Option<Redirect>),
    /// `if (c) s [else s]`.
    If(Expr, Box<Stmt>, Option<Box<Stmt>>),
    /// `while (c) s`.
    While(Expr, Box<Stmt>),
    /// `do s while (c)`.
    Do(Box<Stmt>, Expr),
    /// `for (init; cond; step) s`.
    For(
        Option<Box<Stmt>>,
        Option<Expr>,
        Option<Box<Stmt>>,
        Box<Stmt>,
    ),
    /// `for (k in arr) s`.
    ForIn(String, String, Box<Stmt>),
    /// `{ ... }`.
    Block(Vec<Stmt>),
    /// `next`.
    Next,
    /// `nextfile`.
    NextFile,
    /// `exit [e]`.
    Exit(Option<Expr>),
    /// `return [e]`.
    Return(Option<Expr>),
    /// `break`.
    Break,
    /// `continue`.
    Continue,
    /// `delete arr[subs]` or `delete arr`.
    Delete(String, Option<Vec<Expr>>),
}

/// A pattern-action rule's pattern.
#[derive(Debug, Clone)]
pub enum Pattern {
    /// `BEGIN`.
    Begin,
    /// `END`.
    End,
    /// No pattern: every record.
    All,
    /// An expression pattern.
    Expr(Expr),
    /// `p1, p2` range (index into the range-state table).
    Range(Expr, Expr, usize),
}

/// A rule.
#[derive(Debug, Clone)]
pub struct Rule {
    /// The pattern.
    pub pattern: Pattern,
    /// The action; `None` means `{ print }`.
    pub action: Option<Vec<Stmt>>,
}

/// A user-defined function.
#[derive(Debug, Clone)]
pub struct Func {
    /// Parameter names.
    pub params: Vec<String>,
    /// Body.
    pub body: Vec<Stmt>,
}

/// A parsed program.
#[derive(Debug, Clone, Default)]
pub struct Program {
    /// Rules in order.
    pub rules: Vec<Rule>,
    /// Functions by name.
    pub funcs: std::collections::HashMap<String, Func>,
    /// Number of range patterns.
    pub ranges: usize,
}

/// Parser state.
pub struct Parser {
    toks: Vec<Tok>,
    pos: usize,
    no_in: bool,
    no_gt: bool,
    ranges: usize,
}

type R<T> = Result<T, String>;

impl Parser {
    /// Creates a parser over tokens.
    pub fn new(toks: Vec<Tok>) -> Self {
        Parser {
            toks,
            pos: 0,
            no_in: false,
            no_gt: false,
            ranges: 0,
        }
    }

    fn peek(&self) -> &Tok {
        &self.toks[self.pos.min(self.toks.len() - 1)]
    }

    fn next(&mut self) -> Tok {
        let t = self.peek().clone();
        if self.pos < self.toks.len() {
            self.pos += 1;
        }
        t
    }

    fn is_op(&self, op: &str) -> bool {
        matches!(self.peek(), Tok::Op(o) if *o == op)
    }

    fn is_ident(&self, name: &str) -> bool {
        matches!(self.peek(), Tok::Ident(n) if n == name)
    }

    fn err<T>(&self) -> R<T> {
        let near = match self.peek() {
            Tok::Num(n) => n.to_string(),
            Tok::Str(s) => format!("\"{s}\""),
            Tok::Regex(r) => format!("/{r}/"),
            Tok::Ident(s) | Tok::FuncName(s) => s.clone(),
            Tok::Dollar => "$".into(),
            Tok::Op(o) => (*o).to_owned(),
            Tok::Newline => "newline".into(),
            Tok::Eof => "end of file".into(),
        };
        Err(format!("awk: syntax error at source line 1 near {near}"))
    }

    fn expect_op(&mut self, op: &str) -> R<()> {
        if self.is_op(op) {
            self.pos += 1;
            Ok(())
        } else {
            self.err()
        }
    }

    fn skip_nl(&mut self) {
        while matches!(self.peek(), Tok::Newline) {
            self.pos += 1;
        }
    }

    fn skip_terms(&mut self) {
        while matches!(self.peek(), Tok::Newline) || self.is_op(";") {
            self.pos += 1;
        }
    }

    /// Parses a whole program.
    pub fn program(mut self) -> R<Program> {
        let mut prog = Program::default();
        self.skip_terms();
        while !matches!(self.peek(), Tok::Eof) {
            if self.is_ident("function") || self.is_ident("func") {
                self.pos += 1;
                let name = match self.next() {
                    Tok::FuncName(n) | Tok::Ident(n) => n,
                    _ => return self.err(),
                };
                self.expect_op("(")?;
                let mut params = Vec::new();
                while !self.is_op(")") {
                    match self.next() {
                        Tok::Ident(p) => params.push(p),
                        _ => return self.err(),
                    }
                    if self.is_op(",") {
                        self.pos += 1;
                        self.skip_nl();
                    }
                }
                self.pos += 1;
                self.skip_nl();
                let body = self.block()?;
                prog.funcs.insert(name, Func { params, body });
            } else {
                let pattern = if self.is_ident("BEGIN") {
                    self.pos += 1;
                    Pattern::Begin
                } else if self.is_ident("END") {
                    self.pos += 1;
                    Pattern::End
                } else if self.is_op("{") {
                    Pattern::All
                } else {
                    let e = self.expr()?;
                    if self.is_op(",") {
                        self.pos += 1;
                        self.skip_nl();
                        let e2 = self.expr()?;
                        self.ranges += 1;
                        Pattern::Range(e, e2, self.ranges - 1)
                    } else {
                        Pattern::Expr(e)
                    }
                };
                let action = if self.is_op("{") {
                    Some(self.block()?)
                } else {
                    if matches!(pattern, Pattern::Begin | Pattern::End) {
                        return self.err();
                    }
                    None
                };
                prog.rules.push(Rule { pattern, action });
            }
            self.skip_terms();
        }
        prog.ranges = self.ranges;
        Ok(prog)
    }

    fn block(&mut self) -> R<Vec<Stmt>> {
        self.expect_op("{")?;
        let mut stmts = Vec::new();
        self.skip_terms();
        while !self.is_op("}") {
            if matches!(self.peek(), Tok::Eof) {
                return self.err();
            }
            stmts.push(self.stmt()?);
            self.skip_terms();
        }
        self.pos += 1;
        Ok(stmts)
    }

    fn simple_or_block(&mut self) -> R<Stmt> {
        self.skip_nl();
        if self.is_op(";") {
            self.pos += 1;
            return Ok(Stmt::Block(Vec::new()));
        }
        self.stmt()
    }

    fn end_simple(&mut self) -> R<()> {
        if self.is_op(";") || matches!(self.peek(), Tok::Newline) {
            self.pos += 1;
            Ok(())
        } else if self.is_op("}") || matches!(self.peek(), Tok::Eof) {
            Ok(())
        } else {
            self.err()
        }
    }

    fn stmt(&mut self) -> R<Stmt> {
        if self.is_op("{") {
            return Ok(Stmt::Block(self.block()?));
        }
        if let Tok::Ident(kw) = self.peek().clone() {
            match kw.as_str() {
                "if" => {
                    self.pos += 1;
                    self.expect_op("(")?;
                    let c = self.expr()?;
                    self.expect_op(")")?;
                    let then = self.simple_or_block()?;
                    let save = self.pos;
                    self.skip_terms();
                    if self.is_ident("else") {
                        self.pos += 1;
                        let els = self.simple_or_block()?;
                        return Ok(Stmt::If(c, Box::new(then), Some(Box::new(els))));
                    }
                    self.pos = save;
                    return Ok(Stmt::If(c, Box::new(then), None));
                }
                "while" => {
                    self.pos += 1;
                    self.expect_op("(")?;
                    let c = self.expr()?;
                    self.expect_op(")")?;
                    if self.is_op(";") {
                        self.pos += 1;
                        return Ok(Stmt::While(c, Box::new(Stmt::Block(Vec::new()))));
                    }
                    let body = self.simple_or_block()?;
                    return Ok(Stmt::While(c, Box::new(body)));
                }
                "do" => {
                    self.pos += 1;
                    let body = self.simple_or_block()?;
                    self.skip_terms();
                    if !self.is_ident("while") {
                        return self.err();
                    }
                    self.pos += 1;
                    self.expect_op("(")?;
                    let c = self.expr()?;
                    self.expect_op(")")?;
                    self.end_simple()?;
                    return Ok(Stmt::Do(Box::new(body), c));
                }
                "for" => {
                    self.pos += 1;
                    self.expect_op("(")?;
                    // for (k in arr)
                    if let (Tok::Ident(k), Tok::Ident(i)) = (
                        self.peek().clone(),
                        self.toks.get(self.pos + 1).cloned().unwrap_or(Tok::Eof),
                    ) && i == "in"
                        && let (Some(Tok::Ident(arr)), Some(Tok::Op(")"))) = (
                            self.toks.get(self.pos + 2).cloned(),
                            self.toks.get(self.pos + 3).cloned(),
                        )
                    {
                        self.pos += 4;
                        let body = self.simple_or_block()?;
                        return Ok(Stmt::ForIn(k, arr, Box::new(body)));
                    }
                    let init = if self.is_op(";") {
                        None
                    } else {
                        Some(Box::new(self.simple_stmt()?))
                    };
                    self.expect_op(";")?;
                    self.skip_nl();
                    let cond = if self.is_op(";") {
                        None
                    } else {
                        Some(self.expr()?)
                    };
                    self.expect_op(";")?;
                    self.skip_nl();
                    let step = if self.is_op(")") {
                        None
                    } else {
                        Some(Box::new(self.simple_stmt()?))
                    };
                    self.expect_op(")")?;
                    if self.is_op(";") {
                        self.pos += 1;
                        return Ok(Stmt::For(
                            init,
                            cond,
                            step,
                            Box::new(Stmt::Block(Vec::new())),
                        ));
                    }
                    let body = self.simple_or_block()?;
                    return Ok(Stmt::For(init, cond, step, Box::new(body)));
                }
                "next" => {
                    self.pos += 1;
                    self.end_simple()?;
                    return Ok(Stmt::Next);
                }
                "nextfile" => {
                    self.pos += 1;
                    self.end_simple()?;
                    return Ok(Stmt::NextFile);
                }
                "break" => {
                    self.pos += 1;
                    self.end_simple()?;
                    return Ok(Stmt::Break);
                }
                "continue" => {
                    self.pos += 1;
                    self.end_simple()?;
                    return Ok(Stmt::Continue);
                }
                "exit" | "return" => {
                    self.pos += 1;
                    let e = if self.is_op(";")
                        || self.is_op("}")
                        || matches!(self.peek(), Tok::Newline | Tok::Eof)
                    {
                        None
                    } else {
                        Some(self.expr()?)
                    };
                    self.end_simple()?;
                    return Ok(if kw == "exit" {
                        Stmt::Exit(e)
                    } else {
                        Stmt::Return(e)
                    });
                }
                "delete" => {
                    self.pos += 1;
                    let name = match self.next() {
                        Tok::Ident(n) => n,
                        _ => return self.err(),
                    };
                    let subs = if self.is_op("[") {
                        self.pos += 1;
                        let s = self.expr_list()?;
                        self.expect_op("]")?;
                        Some(s)
                    } else {
                        None
                    };
                    self.end_simple()?;
                    return Ok(Stmt::Delete(name, subs));
                }
                _ => {}
            }
        }
        let s = self.simple_stmt()?;
        self.end_simple()?;
        Ok(s)
    }

    fn simple_stmt(&mut self) -> R<Stmt> {
        if self.is_ident("print") || self.is_ident("printf") {
            let printf = self.is_ident("printf");
            self.pos += 1;
            let saved = self.no_gt;
            self.no_gt = true;
            let mut args = if self.is_op(";")
                || self.is_op("}")
                || self.is_op(">")
                || self.is_op(">>")
                || self.is_op("|")
                || matches!(self.peek(), Tok::Newline | Tok::Eof)
            {
                Vec::new()
            } else {
                self.expr_list()?
            };
            self.no_gt = saved;
            // `print (a, b)` parses as a group.
            if args.len() == 1
                && let Expr::Group(g) = &args[0]
            {
                args = g.clone();
            }
            let redirect = if self.is_op(">") {
                self.pos += 1;
                Some(Redirect::File(self.concat_expr()?))
            } else if self.is_op(">>") {
                self.pos += 1;
                Some(Redirect::Append(self.concat_expr()?))
            } else if self.is_op("|") {
                self.pos += 1;
                Some(Redirect::Pipe(self.concat_expr()?))
            } else {
                None
            };
            return Ok(if printf {
                Stmt::Printf(args, redirect)
            } else {
                Stmt::Print(args, redirect)
            });
        }
        Ok(Stmt::Expr(self.expr()?))
    }

    fn expr_list(&mut self) -> R<Vec<Expr>> {
        let mut v = vec![self.expr()?];
        while self.is_op(",") {
            self.pos += 1;
            self.skip_nl();
            v.push(self.expr()?);
        }
        Ok(v)
    }

    /// Parses an expression (assignment level).
    pub fn expr(&mut self) -> R<Expr> {
        let lhs = self.ternary()?;
        let op = match self.peek() {
            Tok::Op(o @ ("=" | "+=" | "-=" | "*=" | "/=" | "%=" | "^=" | "**=")) => *o,
            _ => return Ok(lhs),
        };
        let Some(lv) = as_lvalue(&lhs) else {
            return Ok(lhs);
        };
        self.pos += 1;
        self.skip_nl();
        let rhs = self.expr()?;
        let bin = match op {
            "=" => None,
            "+=" => Some("+"),
            "-=" => Some("-"),
            "*=" => Some("*"),
            "/=" => Some("/"),
            "%=" => Some("%"),
            _ => Some("^"),
        };
        Ok(Expr::Assign(bin, lv, Box::new(rhs)))
    }

    fn ternary(&mut self) -> R<Expr> {
        let c = self.or()?;
        if self.is_op("?") {
            self.pos += 1;
            self.skip_nl();
            let a = self.expr()?;
            self.skip_nl();
            self.expect_op(":")?;
            self.skip_nl();
            let b = self.expr()?;
            return Ok(Expr::Cond(Box::new(c), Box::new(a), Box::new(b)));
        }
        Ok(c)
    }

    fn or(&mut self) -> R<Expr> {
        let mut l = self.and()?;
        while self.is_op("||") {
            self.pos += 1;
            self.skip_nl();
            let r = self.and()?;
            l = Expr::Logic(true, Box::new(l), Box::new(r));
        }
        Ok(l)
    }

    fn and(&mut self) -> R<Expr> {
        let mut l = self.in_expr()?;
        while self.is_op("&&") {
            self.pos += 1;
            self.skip_nl();
            let r = self.in_expr()?;
            l = Expr::Logic(false, Box::new(l), Box::new(r));
        }
        Ok(l)
    }

    fn in_expr(&mut self) -> R<Expr> {
        let mut l = self.match_expr()?;
        while !self.no_in && self.is_ident("in") {
            self.pos += 1;
            let arr = match self.next() {
                Tok::Ident(a) => a,
                _ => return self.err(),
            };
            let subs = match l {
                Expr::Group(g) => g,
                e => vec![e],
            };
            l = Expr::In(subs, arr);
        }
        Ok(l)
    }

    fn match_expr(&mut self) -> R<Expr> {
        let mut l = self.rel()?;
        loop {
            let neg = if self.is_op("~") {
                false
            } else if self.is_op("!~") {
                true
            } else {
                return Ok(l);
            };
            self.pos += 1;
            let r = self.rel()?;
            l = Expr::Match(neg, Box::new(l), Box::new(r));
        }
    }

    fn rel(&mut self) -> R<Expr> {
        let l = self.concat_expr()?;
        let op = match self.peek() {
            Tok::Op(o @ ("<" | "<=" | "==" | "!=" | ">=")) => *o,
            Tok::Op(">") if !self.no_gt => ">",
            _ => return Ok(l),
        };
        self.pos += 1;
        let r = self.concat_expr()?;
        Ok(Expr::Bin(op, Box::new(l), Box::new(r)))
    }

    fn concat_expr(&mut self) -> R<Expr> {
        let mut l = self.additive()?;
        loop {
            let starts = match self.peek() {
                Tok::Num(_) | Tok::Str(_) | Tok::Dollar | Tok::FuncName(_) => true,
                Tok::Ident(n) => {
                    n != "in" && n != "getline" && !super::lexer::is_keyword(n) || n == "length"
                }
                Tok::Op("(") => true,
                _ => false,
            };
            if !starts {
                return Ok(l);
            }
            let r = self.additive()?;
            l = Expr::Concat(Box::new(l), Box::new(r));
        }
    }

    fn additive(&mut self) -> R<Expr> {
        let mut l = self.mul()?;
        loop {
            let op = match self.peek() {
                Tok::Op(o @ ("+" | "-")) => *o,
                _ => return Ok(l),
            };
            self.pos += 1;
            self.skip_nl();
            let r = self.mul()?;
            l = Expr::Bin(op, Box::new(l), Box::new(r));
        }
    }

    fn mul(&mut self) -> R<Expr> {
        let mut l = self.unary()?;
        loop {
            let op = match self.peek() {
                Tok::Op(o @ ("*" | "/" | "%")) => *o,
                _ => return Ok(l),
            };
            self.pos += 1;
            self.skip_nl();
            let r = self.unary()?;
            l = Expr::Bin(op, Box::new(l), Box::new(r));
        }
    }

    fn unary(&mut self) -> R<Expr> {
        if self.is_op("!") {
            self.pos += 1;
            return Ok(Expr::Not(Box::new(self.unary()?)));
        }
        if self.is_op("-") {
            self.pos += 1;
            return Ok(Expr::Neg(Box::new(self.unary()?)));
        }
        if self.is_op("+") {
            self.pos += 1;
            return Ok(Expr::Plus(Box::new(self.unary()?)));
        }
        self.power()
    }

    fn power(&mut self) -> R<Expr> {
        let base = self.postfix()?;
        if self.is_op("^") || self.is_op("**") {
            self.pos += 1;
            let exp = self.unary()?; // right associative
            return Ok(Expr::Bin("^", Box::new(base), Box::new(exp)));
        }
        Ok(base)
    }

    fn postfix(&mut self) -> R<Expr> {
        if self.is_op("++") || self.is_op("--") {
            let d = if self.is_op("++") { 1.0 } else { -1.0 };
            self.pos += 1;
            let e = self.postfix()?;
            let Some(lv) = as_lvalue(&e) else {
                return self.err();
            };
            return Ok(Expr::Incr(lv, d, true));
        }
        let e = self.primary()?;
        if let Some(lv) = as_lvalue(&e)
            && (self.is_op("++") || self.is_op("--"))
        {
            let d = if self.is_op("++") { 1.0 } else { -1.0 };
            self.pos += 1;
            return Ok(Expr::Incr(lv, d, false));
        }
        // `cmd | getline [var]`
        if self.is_op("|")
            && matches!(self.toks.get(self.pos + 1), Some(Tok::Ident(g)) if g == "getline")
        {
            self.pos += 2;
            let var = self.getline_var()?;
            return Ok(Expr::Getline {
                var,
                file: None,
                cmd: Some(Box::new(e)),
            });
        }
        Ok(e)
    }

    fn getline_var(&mut self) -> R<Option<LValue>> {
        match self.peek().clone() {
            Tok::Dollar => {
                let e = self.primary()?;
                Ok(as_lvalue(&e))
            }
            Tok::Ident(n) if !super::lexer::is_keyword(&n) => {
                let e = self.primary()?;
                Ok(as_lvalue(&e))
            }
            _ => Ok(None),
        }
    }

    fn primary(&mut self) -> R<Expr> {
        match self.next() {
            Tok::Num(n) => Ok(Expr::Num(n)),
            Tok::Str(s) => Ok(Expr::Str(s)),
            Tok::Regex(r) => Ok(Expr::Regex(r)),
            Tok::Dollar => {
                let e = if self.is_op("++") || self.is_op("--") || self.is_op("-") {
                    self.unary()?
                } else {
                    self.primary()?
                };
                Ok(Expr::Lv(LValue::Field(Box::new(e))))
            }
            Tok::Op("(") => {
                let saved = (self.no_in, self.no_gt);
                self.no_in = false;
                self.no_gt = false;
                self.skip_nl();
                let mut list = vec![self.expr()?];
                while self.is_op(",") {
                    self.pos += 1;
                    self.skip_nl();
                    list.push(self.expr()?);
                }
                self.skip_nl();
                self.expect_op(")")?;
                self.no_in = saved.0;
                self.no_gt = saved.1;
                if list.len() == 1 {
                    Ok(list.pop().unwrap_or(Expr::Num(0.0)))
                } else {
                    Ok(Expr::Group(list))
                }
            }
            Tok::FuncName(name) => {
                self.expect_op("(")?;
                let saved = (self.no_in, self.no_gt);
                self.no_in = false;
                self.no_gt = false;
                self.skip_nl();
                let args = if self.is_op(")") {
                    Vec::new()
                } else {
                    self.expr_list()?
                };
                self.skip_nl();
                self.expect_op(")")?;
                self.no_in = saved.0;
                self.no_gt = saved.1;
                Ok(Expr::Call(name, args))
            }
            Tok::Ident(name) => {
                if name == "getline" {
                    let var = self.getline_var()?;
                    let file = if self.is_op("<") {
                        self.pos += 1;
                        Some(Box::new(self.primary()?))
                    } else {
                        None
                    };
                    return Ok(Expr::Getline {
                        var,
                        file,
                        cmd: None,
                    });
                }
                if name == "length" {
                    return Ok(Expr::Call("length".into(), Vec::new()));
                }
                if super::lexer::is_keyword(&name) {
                    self.pos -= 1;
                    return self.err();
                }
                if self.is_op("[") {
                    self.pos += 1;
                    let subs = self.expr_list()?;
                    self.expect_op("]")?;
                    return Ok(Expr::Lv(LValue::Index(name, subs)));
                }
                Ok(Expr::Lv(LValue::Var(name)))
            }
            _ => {
                self.pos -= 1;
                self.err()
            }
        }
    }
}

fn as_lvalue(e: &Expr) -> Option<LValue> {
    match e {
        Expr::Lv(lv) => Some(lv.clone()),
        _ => None,
    }
}

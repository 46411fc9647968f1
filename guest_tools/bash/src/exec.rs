//! The interpreter: runs the AST produced by `brush-parser` against the shell state.
//!
//! There are no processes: pipeline stages run one after another, each reading the previous
//! stage's complete output, and every stage of a multi-command pipeline runs in a "subshell"
//! (a saved-and-restored copy of the shell state), as bash does without `lastpipe`.

use std::fs::OpenOptions;
use std::rc::Rc;

use brush_parser::ast::{self, CommandPrefixOrSuffixItem as Item, IoFileRedirectKind as Kind};

use crate::builtins;
use crate::expand;
use crate::io::{Input, Io, Stream};
use crate::pattern::Pattern;
use crate::shell::{COMMAND_BUDGET, ExecResult, Flow, Shell, io_err_msg};

impl Shell {
    /// Parses and runs `src`. Syntax errors print bash's message and yield status 2.
    pub fn run_script(&mut self, src: &str, io: &Io) -> ExecResult {
        let program = match crate::parse::parse_program(src) {
            Ok(p) => p,
            Err(msg) => {
                io.errln(format!("bash: {msg}"));
                self.last_status = 2;
                return Ok(2);
            }
        };
        let mut status = 0;
        for cmd in &program.complete_commands {
            status = self.exec_list(cmd, io)?;
        }
        Ok(status)
    }

    /// Runs `f` in a subshell: state changes made by `f` are discarded (the command budget
    /// is kept), and `exit` only leaves the subshell.
    pub fn subshell(&mut self, f: impl FnOnce(&mut Shell) -> ExecResult) -> ExecResult {
        let saved = self.clone();
        self.enter_subshell();
        let result = f(self);
        let (steps, subshells) = (self.steps, self.subshells());
        *self = saved;
        self.steps = steps;
        self.keep_subshells(subshells);
        match result {
            Ok(s) | Err(Flow::Exit(s)) | Err(Flow::Return(s)) => Ok(s),
            Err(Flow::Break(_)) | Err(Flow::Continue(_)) => Ok(0),
            Err(Flow::Timeout) => Err(Flow::Timeout),
        }
    }

    /// Runs `cmd` in a subshell with stdout captured and returns it without trailing newlines.
    pub fn command_substitution(&mut self, io: &Io, cmd: &str) -> String {
        let buf = Stream::buffer();
        let sub_io = Io {
            stdin: io.stdin.clone(),
            stdout: buf.clone(),
            stderr: io.stderr.clone(),
        };
        let status = self
            .subshell(|sh| sh.run_script(cmd, &sub_io))
            .unwrap_or(124);
        self.last_status = status;
        self.subst_status = Some(status);
        let bytes = buf.take();
        let mut s = String::from_utf8_lossy(&bytes).into_owned();
        while s.ends_with('\n') {
            s.pop();
        }
        s
    }

    /// Runs `list` in a subshell and returns its stdout (process substitution).
    fn capture_subshell(&mut self, list: &ast::CompoundList, io: &Io) -> Result<Vec<u8>, Flow> {
        let buf = Stream::buffer();
        let sub_io = Io {
            stdin: io.stdin.clone(),
            stdout: buf.clone(),
            stderr: io.stderr.clone(),
        };
        self.subshell(|sh| sh.exec_list(list, &sub_io))?;
        Ok(buf.take())
    }

    /// Runs a compound list (`a; b && c; ...`).
    pub fn exec_list(&mut self, list: &ast::CompoundList, io: &Io) -> ExecResult {
        let mut status = 0;
        for ast::CompoundListItem(and_or, _sep) in &list.0 {
            status = self.exec_and_or(and_or, io)?;
        }
        Ok(status)
    }

    fn exec_and_or(&mut self, list: &ast::AndOrList, io: &Io) -> ExecResult {
        let checked = list.additional.is_empty();
        let mut status = self.exec_pipeline(&list.first, io, !checked)?;
        for (i, next) in list.additional.iter().enumerate() {
            let last = i + 1 == list.additional.len();
            match next {
                ast::AndOr::And(p) if status == 0 => status = self.exec_pipeline(p, io, !last)?,
                ast::AndOr::Or(p) if status != 0 => status = self.exec_pipeline(p, io, !last)?,
                _ => {}
            }
        }
        Ok(status)
    }

    fn exec_pipeline(&mut self, p: &ast::Pipeline, io: &Io, in_condition: bool) -> ExecResult {
        let status = if p.seq.len() == 1 {
            self.condition_depth += u32::from(in_condition || p.bang);
            let r = self.exec_command(&p.seq[0], io);
            self.condition_depth -= u32::from(in_condition || p.bang);
            r?
        } else {
            let mut input = io.stdin.clone();
            let mut statuses = Vec::new();
            for (i, cmd) in p.seq.iter().enumerate() {
                let last = i + 1 == p.seq.len();
                let out = if last {
                    io.stdout.clone()
                } else {
                    Stream::buffer()
                };
                let stage_io = Io {
                    stdin: input.clone(),
                    stdout: out.clone(),
                    stderr: io.stderr.clone(),
                };
                let s = self.subshell(|sh| sh.exec_command(cmd, &stage_io))?;
                statuses.push(s);
                if !last {
                    input = Input::from_bytes(out.take());
                }
            }
            if self.pipefail {
                statuses
                    .iter()
                    .rev()
                    .find(|s| **s != 0)
                    .copied()
                    .unwrap_or(0)
            } else {
                *statuses.last().unwrap_or(&0)
            }
        };
        let status = if p.bang {
            i32::from(status == 0)
        } else {
            status
        };
        self.last_status = status;
        if status != 0 && self.errexit && !in_condition && !p.bang && self.condition_depth == 0 {
            return Err(Flow::Exit(status));
        }
        Ok(status)
    }

    fn exec_command(&mut self, cmd: &ast::Command, io: &Io) -> ExecResult {
        match cmd {
            ast::Command::Simple(simple) => self.exec_simple(simple, io),
            ast::Command::Compound(compound, redirects) => {
                let io = match redirects {
                    Some(r) => match self.apply_redirects(&r.0.iter().collect::<Vec<_>>(), io) {
                        Ok(io) => io,
                        Err(msg) => {
                            io.errln(format!("bash: {msg}"));
                            return Ok(1);
                        }
                    },
                    None => io.clone(),
                };
                self.exec_compound(compound, &io)
            }
            ast::Command::Function(def) => {
                self.functions
                    .insert(def.fname.value.clone(), Rc::new(def.clone()));
                Ok(0)
            }
            ast::Command::ExtendedTest(test, redirects) => {
                let io = match redirects {
                    Some(r) => match self.apply_redirects(&r.0.iter().collect::<Vec<_>>(), io) {
                        Ok(io) => io,
                        Err(msg) => {
                            io.errln(format!("bash: {msg}"));
                            return Ok(1);
                        }
                    },
                    None => io.clone(),
                };
                self.tick()?;
                match self.eval_extended_test(&test.expr, &io) {
                    Ok(b) => Ok(i32::from(!b)),
                    Err(msg) => {
                        io.errln(format!("bash: {msg}"));
                        Ok(2)
                    }
                }
            }
        }
    }

    fn tick(&mut self) -> Result<(), Flow> {
        self.steps += 1;
        if self.steps > COMMAND_BUDGET {
            return Err(Flow::Timeout);
        }
        Ok(())
    }

    fn exec_loop_body(&mut self, body: &ast::CompoundList, io: &Io) -> Result<LoopCtl, Flow> {
        self.loop_depth += 1;
        let r = self.exec_list(body, io);
        self.loop_depth -= 1;
        match r {
            Ok(s) => Ok(LoopCtl::Next(s)),
            Err(Flow::Break(n)) if n > 1 => Err(Flow::Break(n - 1)),
            Err(Flow::Break(_)) => Ok(LoopCtl::Break),
            Err(Flow::Continue(n)) if n > 1 => Err(Flow::Continue(n - 1)),
            Err(Flow::Continue(_)) => Ok(LoopCtl::Next(0)),
            Err(e) => Err(e),
        }
    }

    fn exec_condition(&mut self, list: &ast::CompoundList, io: &Io) -> ExecResult {
        self.condition_depth += 1;
        let r = self.exec_list(list, io);
        self.condition_depth -= 1;
        r
    }

    fn exec_compound(&mut self, cmd: &ast::CompoundCommand, io: &Io) -> ExecResult {
        use ast::CompoundCommand as C;
        match cmd {
            C::BraceGroup(g) => self.exec_list(&g.list, io),
            C::Subshell(s) => self.subshell(|sh| sh.exec_list(&s.list, io)),
            C::IfClause(c) => {
                if self.exec_condition(&c.condition, io)? == 0 {
                    return self.exec_list(&c.then, io);
                }
                for e in c.elses.iter().flatten() {
                    match &e.condition {
                        Some(cond) => {
                            if self.exec_condition(cond, io)? == 0 {
                                return self.exec_list(&e.body, io);
                            }
                        }
                        None => return self.exec_list(&e.body, io),
                    }
                }
                Ok(0)
            }
            C::ForClause(f) => {
                let values = match &f.values {
                    Some(words) => {
                        let mut v = Vec::new();
                        for w in words {
                            match expand::expand_word(self, io, &w.value) {
                                Ok(mut fields) => v.append(&mut fields),
                                Err(msg) => {
                                    io.errln(format!("bash: {msg}"));
                                    return Ok(1);
                                }
                            }
                        }
                        v
                    }
                    None => self.positional.clone(),
                };
                let mut status = 0;
                for value in values {
                    self.tick()?;
                    self.set_var(&f.variable_name, &value);
                    match self.exec_loop_body(&f.body.list, io)? {
                        LoopCtl::Next(s) => status = s,
                        LoopCtl::Break => break,
                    }
                }
                Ok(status)
            }
            C::ArithmeticForClause(f) => {
                let eval = |sh: &mut Shell, e: &Option<ast::UnexpandedArithmeticExpr>| match e {
                    Some(e) => crate::arith::eval_str(sh, &e.value),
                    None => Ok(1),
                };
                if let Err(msg) = eval(self, &f.initializer) {
                    io.errln(format!("bash: {msg}"));
                    return Ok(1);
                }
                let mut status = 0;
                loop {
                    self.tick()?;
                    match eval(self, &f.condition) {
                        Ok(0) => break,
                        Ok(_) => {}
                        Err(msg) => {
                            io.errln(format!("bash: {msg}"));
                            return Ok(1);
                        }
                    }
                    match self.exec_loop_body(&f.body.list, io)? {
                        LoopCtl::Next(s) => status = s,
                        LoopCtl::Break => break,
                    }
                    if let Err(msg) = eval(self, &f.updater) {
                        io.errln(format!("bash: {msg}"));
                        return Ok(1);
                    }
                }
                Ok(status)
            }
            C::WhileClause(w) | C::UntilClause(w) => {
                let until = matches!(cmd, C::UntilClause(_));
                let mut status = 0;
                loop {
                    self.tick()?;
                    let c = self.exec_condition(&w.0, io)?;
                    if (c == 0) == until {
                        break;
                    }
                    match self.exec_loop_body(&w.1.list, io)? {
                        LoopCtl::Next(s) => status = s,
                        LoopCtl::Break => break,
                    }
                }
                Ok(status)
            }
            C::CaseClause(c) => {
                let value = match expand::expand_string(self, io, &c.value.value) {
                    Ok(v) => v,
                    Err(msg) => {
                        io.errln(format!("bash: {msg}"));
                        return Ok(1);
                    }
                };
                let mut status = 0;
                let mut fallthrough = false;
                for item in &c.cases {
                    let mut matched = fallthrough;
                    if !matched {
                        for p in &item.patterns {
                            let pat =
                                expand::expand_pattern(self, io, &p.value).unwrap_or_default();
                            if Pattern::new(&pat).matches(&value) {
                                matched = true;
                                break;
                            }
                        }
                    }
                    if !matched {
                        continue;
                    }
                    if let Some(cmd) = &item.cmd {
                        status = self.exec_list(cmd, io)?;
                    }
                    match item.post_action {
                        ast::CaseItemPostAction::ExitCase => break,
                        ast::CaseItemPostAction::UnconditionallyExecuteNextCaseItem => {
                            fallthrough = true;
                        }
                        ast::CaseItemPostAction::ContinueEvaluatingCases => fallthrough = false,
                    }
                }
                Ok(status)
            }
            C::Arithmetic(a) => {
                self.tick()?;
                let text = match expand::expand_string(self, io, &format!("\"{}\"", a.expr.value)) {
                    Ok(t) => t,
                    Err(_) => a.expr.value.clone(),
                };
                match crate::arith::eval_str(self, &text) {
                    Ok(v) => Ok(i32::from(v == 0)),
                    Err(msg) => {
                        io.errln(format!("bash: {msg}"));
                        Ok(1)
                    }
                }
            }
            C::Coprocess(_) => {
                io.errln("bash: coproc: not supported");
                Ok(1)
            }
        }
    }

    fn eval_extended_test(&mut self, e: &ast::ExtendedTestExpr, io: &Io) -> Result<bool, String> {
        use ast::ExtendedTestExpr as E;
        Ok(match e {
            E::And(a, b) => self.eval_extended_test(a, io)? && self.eval_extended_test(b, io)?,
            E::Or(a, b) => self.eval_extended_test(a, io)? || self.eval_extended_test(b, io)?,
            E::Not(a) => !self.eval_extended_test(a, io)?,
            E::Parenthesized(a) => self.eval_extended_test(a, io)?,
            E::UnaryTest(pred, w) => {
                let v = expand::expand_string(self, io, &w.value)?;
                let op = pred.to_string();
                if op == "-v" {
                    self.get_var(&v).is_some()
                } else {
                    builtins::test::unary(self, &op, &v)
                }
            }
            E::BinaryTest(pred, l, r) => {
                use ast::BinaryPredicate as B;
                let left = expand::expand_string(self, io, &l.value)?;
                match pred {
                    B::StringExactlyMatchesPattern | B::StringDoesNotExactlyMatchPattern => {
                        let pat = expand::expand_pattern(self, io, &r.value)?;
                        let m = Pattern::new(&pat).matches(&left);
                        m == matches!(pred, B::StringExactlyMatchesPattern)
                    }
                    B::StringMatchesRegex | B::StringContainsSubstring => {
                        let re_text = expand::expand_string(self, io, &r.value)?;
                        let re = regex::Regex::new(&re_text)
                            .map_err(|_| format!("invalid regex: {re_text}"))?;
                        match re.captures(&left) {
                            Some(caps) => {
                                let groups: Vec<String> = caps
                                    .iter()
                                    .map(|m| m.map_or(String::new(), |m| m.as_str().to_owned()))
                                    .collect();
                                self.set_var("BASH_REMATCH", groups.first().map_or("", |s| s));
                                if let Some(v) = self.vars.get_mut("BASH_REMATCH") {
                                    v.array = Some(groups);
                                }
                                true
                            }
                            None => {
                                self.set_var("BASH_REMATCH", "");
                                false
                            }
                        }
                    }
                    _ => {
                        let right = expand::expand_string(self, io, &r.value)?;
                        builtins::test::binary(self, &pred.to_string(), &left, &right)?
                    }
                }
            }
        })
    }

    fn exec_simple(&mut self, cmd: &ast::SimpleCommand, io: &Io) -> ExecResult {
        self.tick()?;
        let mut assignments: Vec<&ast::Assignment> = Vec::new();
        let mut words: Vec<ast::Word> = Vec::new();
        let mut redirects: Vec<&ast::IoRedirect> = Vec::new();
        for item in cmd.prefix.iter().flat_map(|p| p.0.iter()) {
            match item {
                Item::AssignmentWord(a, _) => assignments.push(a),
                Item::IoRedirect(r) => redirects.push(r),
                Item::Word(w) => words.push(w.clone()),
                Item::ProcessSubstitution(..) => {}
            }
        }
        if let Some(w) = &cmd.word_or_name {
            words.push(w.clone());
        }
        let mut declaration = false;
        let mut psub_files: Vec<String> = Vec::new();
        for item in cmd.suffix.iter().flat_map(|p| p.0.iter()) {
            match item {
                Item::IoRedirect(r) => redirects.push(r),
                Item::Word(w) => words.push(w.clone()),
                Item::AssignmentWord(_, w) => {
                    declaration = true;
                    words.push(w.clone())
                }
                Item::ProcessSubstitution(kind, sub) => {
                    if matches!(kind, ast::ProcessSubstitutionKind::Write) {
                        io.errln("bash: output process substitution is not supported");
                        return Ok(1);
                    }
                    let data = self.capture_subshell(&sub.list, io)?;
                    let _ = std::fs::create_dir_all("/tmp");
                    self.psub_counter += 1;
                    // `std::process::id()` panics on WASI, where the shell is alone anyway.
                    let pid = if cfg!(target_os = "wasi") {
                        0
                    } else {
                        std::process::id()
                    };
                    let path = format!("/tmp/.clawrun-psub-{pid}-{}", self.psub_counter);
                    if std::fs::write(&path, data).is_err() {
                        io.errln("bash: cannot create temp file for process substitution");
                        return Ok(1);
                    }
                    psub_files.push(path.clone());
                    words.push(ast::Word::new(&format!("'{path}'")));
                }
            }
        }
        self.subst_status = None;
        let mut argv: Vec<String> = Vec::new();
        for w in &words {
            // Arguments of declaration builtins that look like assignments are not split.
            let is_decl_arg = declaration
                && !argv.is_empty()
                && matches!(
                    argv[0].as_str(),
                    "export" | "local" | "declare" | "readonly"
                )
                && w.value.contains('=');
            let r = if is_decl_arg {
                expand::expand_string(self, io, &w.value).map(|s| vec![s])
            } else {
                expand::expand_word(self, io, &w.value)
            };
            match r {
                Ok(mut f) => argv.append(&mut f),
                Err(msg) => {
                    io.errln(format!("bash: {msg}"));
                    self.last_status = 1;
                    return if self.condition_depth == 0 {
                        Err(Flow::Exit(1))
                    } else {
                        Ok(1)
                    };
                }
            }
        }
        let mut values = Vec::new();
        for a in &assignments {
            match self.assignment_value(a, io) {
                Ok(v) => values.push(v),
                Err(msg) => {
                    io.errln(format!("bash: {msg}"));
                    return Ok(1);
                }
            }
        }
        let cmd_io = match self.apply_redirects(&redirects, io) {
            Ok(io) => io,
            Err(msg) => {
                io.errln(format!("bash: {msg}"));
                self.last_status = 1;
                return Ok(1);
            }
        };
        if argv.is_empty() {
            for (a, v) in assignments.iter().zip(values) {
                self.assign(a, v);
            }
            return Ok(self.subst_status.unwrap_or(0));
        }
        // Prefix assignments apply to this command only.
        let mut saved = Vec::new();
        for (a, v) in assignments.iter().zip(values) {
            let name = assignment_name(a);
            saved.push((name.clone(), self.vars.get(&name).cloned()));
            self.assign(a, v);
            if let Some(var) = self.vars.get_mut(&name) {
                var.exported = true;
            }
        }
        crate::io::take_write_error();
        let mut result = self.run_argv(&argv, &cmd_io);
        // A write into a redirected file failed (a full disk): say so, and fail the command.
        if let Some(e) = crate::io::take_write_error() {
            io.errln(format!("bash: write error: {}", io_err_msg(&e)));
            if let Ok(status @ 0) = &mut result {
                *status = 1;
                self.last_status = 1;
            }
        }
        for f in psub_files {
            let _ = std::fs::remove_file(f);
        }
        for (name, old) in saved {
            match old {
                Some(v) => {
                    self.vars.insert(name, v);
                }
                None => {
                    self.vars.remove(&name);
                }
            }
        }
        result
    }

    fn assignment_value(&mut self, a: &ast::Assignment, io: &Io) -> Result<AssignValue, String> {
        Ok(match &a.value {
            ast::AssignmentValue::Scalar(w) => {
                AssignValue::Scalar(expand::expand_string(self, io, &w.value)?)
            }
            ast::AssignmentValue::Array(items) => {
                let mut out = Vec::new();
                for (_, w) in items {
                    out.extend(expand::expand_word(self, io, &w.value)?);
                }
                AssignValue::Array(out)
            }
        })
    }

    fn assign(&mut self, a: &ast::Assignment, value: AssignValue) {
        match (&a.name, value) {
            (ast::AssignmentName::VariableName(name), AssignValue::Scalar(v)) => {
                if a.append {
                    let old = self.get_var(name).unwrap_or_default();
                    self.set_var(name, &(old + &v));
                } else {
                    self.set_var(name, &v);
                }
            }
            (ast::AssignmentName::VariableName(name), AssignValue::Array(items)) => {
                let var = self.vars.entry(name.clone()).or_default();
                let mut arr = if a.append {
                    var.array.take().unwrap_or_default()
                } else {
                    Vec::new()
                };
                arr.extend(items);
                var.value = arr.first().cloned().unwrap_or_default();
                var.array = Some(arr);
            }
            (ast::AssignmentName::ArrayElementName(name, index), AssignValue::Scalar(v)) => {
                let idx = crate::arith::eval_str(self, index).unwrap_or(0);
                if let Ok(i) = usize::try_from(idx) {
                    expand::set_array_element(self, name, i, v);
                }
            }
            (ast::AssignmentName::ArrayElementName(..), AssignValue::Array(_)) => {}
        }
    }

    /// Runs a command given as expanded words: a function, a builtin, or a script file.
    pub fn run_argv(&mut self, argv: &[String], io: &Io) -> ExecResult {
        let name = argv[0].as_str();
        if let Some(func) = self.functions.get(name).cloned() {
            return self.call_function(&func, argv, io);
        }
        if let Some(f) = builtins::lookup(name) {
            let status = f(self, argv, io)?;
            self.last_status = status;
            return Ok(status);
        }
        if name.contains('/') {
            let path = self.resolve(name);
            return match std::fs::read_to_string(&path) {
                Ok(text) if path.is_file() => {
                    let args = argv[1..].to_vec();
                    self.run_script_file(&text, args, io)
                }
                Ok(_) | Err(_) if path.is_dir() => {
                    io.errln(format!("bash: {name}: Is a directory"));
                    Ok(126)
                }
                _ => {
                    io.errln(format!("bash: {name}: No such file or directory"));
                    Ok(127)
                }
            };
        }
        io.errln(format!("bash: {name}: command not found"));
        self.last_status = 127;
        Ok(127)
    }

    /// Runs a script's text in a subshell with the given positional parameters.
    pub fn run_script_file(&mut self, text: &str, args: Vec<String>, io: &Io) -> ExecResult {
        self.subshell(|sh| {
            sh.positional = args;
            sh.functions.clear();
            sh.run_script(text, io)
        })
    }

    fn call_function(
        &mut self,
        func: &ast::FunctionDefinition,
        argv: &[String],
        io: &Io,
    ) -> ExecResult {
        if self.locals.len() > 200 {
            io.errln(format!(
                "bash: {}: maximum function nesting level exceeded (200)",
                argv[0]
            ));
            return Ok(1);
        }
        let saved_pos = std::mem::replace(&mut self.positional, argv[1..].to_vec());
        self.locals.push(Vec::new());
        let io = match &func.body.1 {
            Some(r) => match self.apply_redirects(&r.0.iter().collect::<Vec<_>>(), io) {
                Ok(io) => io,
                Err(msg) => {
                    io.errln(format!("bash: {msg}"));
                    return Ok(1);
                }
            },
            None => io.clone(),
        };
        let r = self.exec_compound(&func.body.0, &io);
        let frame = self.locals.pop().unwrap_or_default();
        for (name, old) in frame.into_iter().rev() {
            match old {
                Some(v) => {
                    self.vars.insert(name, v);
                }
                None => {
                    self.vars.remove(&name);
                }
            }
        }
        self.positional = saved_pos;
        let status = match r {
            Ok(s) | Err(Flow::Return(s)) => s,
            Err(e) => return Err(e),
        };
        self.last_status = status;
        Ok(status)
    }

    /// Applies redirections in order, returning the descriptors for the command.
    pub fn apply_redirects(
        &mut self,
        redirects: &[&ast::IoRedirect],
        io: &Io,
    ) -> Result<Io, String> {
        let mut io = io.clone();
        for r in redirects {
            match r {
                ast::IoRedirect::File(fd, kind, target) => {
                    let default_fd = match kind {
                        Kind::Read | Kind::DuplicateInput | Kind::ReadAndWrite => 0,
                        _ => 1,
                    };
                    let fd = fd.unwrap_or(default_fd);
                    match (kind, target) {
                        (_, ast::IoFileRedirectTarget::Fd(n)) => self.dup(&mut io, fd, *n)?,
                        (_, ast::IoFileRedirectTarget::Duplicate(w)) => {
                            let t = expand::expand_string(self, &io, &w.value)?;
                            if t == "-" {
                                set_fd(&mut io, fd, Stream::Null);
                                if fd == 0 {
                                    io.stdin = Input::empty();
                                }
                            } else if let Ok(n) = t.parse::<i32>() {
                                self.dup(&mut io, fd, n)?;
                            } else if fd == 1 || fd == 2 {
                                // `>& file` means `&> file`.
                                let s = self.open_out(&t, false)?;
                                io.stdout = s.clone();
                                io.stderr = s;
                            } else {
                                return Err(format!("{t}: ambiguous redirect"));
                            }
                        }
                        (_, ast::IoFileRedirectTarget::ProcessSubstitution(kind, sub)) => {
                            if matches!(kind, ast::ProcessSubstitutionKind::Write) || fd != 0 {
                                return Err("output process substitution is not supported".into());
                            }
                            let data = self
                                .capture_subshell(&sub.list, &io)
                                .map_err(|_| "process substitution failed".to_owned())?;
                            io.stdin = Input::from_bytes(data);
                        }
                        (
                            Kind::Read | Kind::ReadAndWrite,
                            ast::IoFileRedirectTarget::Filename(w),
                        ) => {
                            let name = expand::expand_string(self, &io, &w.value)?;
                            let input = self.open_in(&name)?;
                            if fd == 0 {
                                io.stdin = input;
                            }
                        }
                        (_, ast::IoFileRedirectTarget::Filename(w)) => {
                            let name = expand::expand_string(self, &io, &w.value)?;
                            let s = self.open_out(&name, matches!(kind, Kind::Append))?;
                            set_fd(&mut io, fd, s);
                        }
                    }
                }
                ast::IoRedirect::OutputAndError(w, append) => {
                    let name = expand::expand_string(self, &io, &w.value)?;
                    let s = self.open_out(&name, *append)?;
                    io.stdout = s.clone();
                    io.stderr = s;
                }
                ast::IoRedirect::HereDocument(fd, doc) => {
                    let mut body = if doc.requires_expansion {
                        expand::expand_heredoc(self, &io, &doc.doc.value)?
                    } else {
                        doc.doc.value.clone()
                    };
                    if doc.remove_tabs {
                        body = body
                            .split_inclusive('\n')
                            .map(|l| l.trim_start_matches('\t'))
                            .collect();
                    }
                    if fd.unwrap_or(0) == 0 {
                        io.stdin = Input::from_bytes(body.into_bytes());
                    }
                }
                ast::IoRedirect::HereString(fd, w) => {
                    let mut s = expand::expand_string(self, &io, &w.value)?;
                    s.push('\n');
                    if fd.unwrap_or(0) == 0 {
                        io.stdin = Input::from_bytes(s.into_bytes());
                    }
                }
            }
        }
        Ok(io)
    }

    fn dup(&self, io: &mut Io, fd: i32, target: i32) -> Result<(), String> {
        let s = match target {
            1 => io.stdout.clone(),
            2 => io.stderr.clone(),
            0 => return Ok(()),
            n => return Err(format!("{n}: Bad file descriptor")),
        };
        set_fd(io, fd, s);
        Ok(())
    }

    fn open_in(&self, name: &str) -> Result<Input, String> {
        match name {
            "/dev/null" => return Ok(Input::empty()),
            "/dev/stdin" => return Ok(Input::empty()),
            _ => {}
        }
        let path = self.resolve(name);
        if path.is_dir() {
            return Ok(Input::empty());
        }
        std::fs::read(&path)
            .map(Input::from_bytes)
            .map_err(|e| format!("{name}: {}", io_err_msg(&e)))
    }

    fn open_out(&self, name: &str, append: bool) -> Result<Stream, String> {
        match name {
            "/dev/null" => return Ok(Stream::Null),
            "" => return Err(": No such file or directory".into()),
            _ => {}
        }
        let path = self.resolve(name);
        if path.is_dir() {
            return Err(format!("{name}: Is a directory"));
        }
        let mut opts = OpenOptions::new();
        opts.create(true);
        if append {
            opts.append(true);
        } else {
            opts.write(true).truncate(true);
        }
        opts.open(&path)
            .map(|f| Stream::File(Rc::new(std::cell::RefCell::new(f))))
            .map_err(|e| format!("{name}: {}", io_err_msg(&e)))
    }
}

fn set_fd(io: &mut Io, fd: i32, s: Stream) {
    match fd {
        1 => io.stdout = s,
        2 => io.stderr = s,
        _ => {}
    }
}

fn assignment_name(a: &ast::Assignment) -> String {
    match &a.name {
        ast::AssignmentName::VariableName(n) | ast::AssignmentName::ArrayElementName(n, _) => {
            n.clone()
        }
    }
}

enum AssignValue {
    Scalar(String),
    Array(Vec<String>),
}

enum LoopCtl {
    Next(i32),
    Break,
}

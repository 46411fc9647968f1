//! Shell arithmetic (`$(( ))`, `(( ))`, `let`) over the AST from `brush-parser`.

use brush_parser::ast::{
    ArithmeticExpr, ArithmeticTarget, BinaryOperator, UnaryAssignmentOperator, UnaryOperator,
};

use crate::shell::Shell;

/// Parses and evaluates an (already parameter-expanded) arithmetic expression.
pub fn eval_str(sh: &mut Shell, text: &str) -> Result<i64, String> {
    let trimmed = text.trim();
    if trimmed.is_empty() {
        return Ok(0);
    }
    let expr = brush_parser::arithmetic::parse(trimmed)
        .map_err(|_| format!("{trimmed}: syntax error in expression"))?;
    eval(sh, &expr)
}

fn var_value(sh: &mut Shell, name: &str, depth: u32) -> Result<i64, String> {
    let value = sh.get_var(name).unwrap_or_default();
    let value = value.trim();
    if value.is_empty() {
        return Ok(0);
    }
    if let Ok(n) = parse_int(value) {
        return Ok(n);
    }
    if depth > 8 {
        return Err(format!("{value}: expression recursion level exceeded"));
    }
    // Variables may hold expressions (or other variable names).
    let expr = brush_parser::arithmetic::parse(value)
        .map_err(|_| format!("{value}: syntax error in expression"))?;
    eval(sh, &expr)
}

/// The text is not an integer literal.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NotANumber;

/// Parses an integer literal with bash's bases: `0x1f`, `017`, `2#101`.
pub fn parse_int(s: &str) -> Result<i64, NotANumber> {
    let s = s.trim();
    let (neg, digits) = match s.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, s.strip_prefix('+').unwrap_or(s)),
    };
    let value = if let Some(hex) = digits
        .strip_prefix("0x")
        .or_else(|| digits.strip_prefix("0X"))
    {
        i64::from_str_radix(hex, 16).map_err(|_| NotANumber)?
    } else if let Some((base, num)) = digits.split_once('#') {
        let base: u32 = base.parse().map_err(|_| NotANumber)?;
        if !(2..=36).contains(&base) {
            return Err(NotANumber);
        }
        i64::from_str_radix(num, base).map_err(|_| NotANumber)?
    } else if digits.len() > 1 && digits.starts_with('0') {
        i64::from_str_radix(&digits[1..], 8).map_err(|_| NotANumber)?
    } else {
        digits.parse::<i64>().map_err(|_| NotANumber)?
    };
    Ok(if neg { value.wrapping_neg() } else { value })
}

fn target_get(sh: &mut Shell, target: &ArithmeticTarget) -> Result<i64, String> {
    match target {
        ArithmeticTarget::Variable(name) => var_value(sh, name, 0),
        ArithmeticTarget::ArrayElement(name, index) => {
            let idx = eval(sh, index)?;
            let value = sh
                .vars
                .get(name)
                .and_then(|v| match &v.array {
                    Some(a) => usize::try_from(idx).ok().and_then(|i| a.get(i).cloned()),
                    None if idx == 0 => Some(v.value.clone()),
                    None => None,
                })
                .unwrap_or_default();
            Ok(parse_int(&value).unwrap_or(0))
        }
    }
}

fn target_set(sh: &mut Shell, target: &ArithmeticTarget, value: i64) -> Result<(), String> {
    match target {
        ArithmeticTarget::Variable(name) => sh.set_var(name, &value.to_string()),
        ArithmeticTarget::ArrayElement(name, index) => {
            let idx = usize::try_from(eval(sh, index)?).map_err(|_| "bad array subscript")?;
            crate::expand::set_array_element(sh, name, idx, value.to_string());
        }
    }
    Ok(())
}

fn binary(op: &BinaryOperator, a: i64, b: i64) -> Result<i64, String> {
    use BinaryOperator::*;
    Ok(match op {
        Power => {
            if b < 0 {
                return Err("exponent less than 0".into());
            }
            a.wrapping_pow(u32::try_from(b).unwrap_or(u32::MAX))
        }
        Multiply => a.wrapping_mul(b),
        Divide | Modulo if b == 0 => return Err("division by 0".into()),
        Divide => a.wrapping_div(b),
        Modulo => a.wrapping_rem(b),
        Comma => b,
        Add => a.wrapping_add(b),
        Subtract => a.wrapping_sub(b),
        ShiftLeft => a.wrapping_shl(b as u32),
        ShiftRight => a.wrapping_shr(b as u32),
        LessThan => i64::from(a < b),
        LessThanOrEqualTo => i64::from(a <= b),
        GreaterThan => i64::from(a > b),
        GreaterThanOrEqualTo => i64::from(a >= b),
        Equals => i64::from(a == b),
        NotEquals => i64::from(a != b),
        BitwiseAnd => a & b,
        BitwiseXor => a ^ b,
        BitwiseOr => a | b,
        LogicalAnd => i64::from(a != 0 && b != 0),
        LogicalOr => i64::from(a != 0 || b != 0),
    })
}

/// Evaluates an arithmetic AST.
pub fn eval(sh: &mut Shell, expr: &ArithmeticExpr) -> Result<i64, String> {
    Ok(match expr {
        ArithmeticExpr::Literal(n) => *n,
        ArithmeticExpr::Reference(t) => target_get(sh, t)?,
        ArithmeticExpr::UnaryOp(op, e) => {
            let v = eval(sh, e)?;
            match op {
                UnaryOperator::UnaryPlus => v,
                UnaryOperator::UnaryMinus => v.wrapping_neg(),
                UnaryOperator::BitwiseNot => !v,
                UnaryOperator::LogicalNot => i64::from(v == 0),
            }
        }
        ArithmeticExpr::BinaryOp(BinaryOperator::LogicalAnd, a, b) => {
            i64::from(eval(sh, a)? != 0 && eval(sh, b)? != 0)
        }
        ArithmeticExpr::BinaryOp(BinaryOperator::LogicalOr, a, b) => {
            i64::from(eval(sh, a)? != 0 || eval(sh, b)? != 0)
        }
        ArithmeticExpr::BinaryOp(op, a, b) => {
            let a = eval(sh, a)?;
            let b = eval(sh, b)?;
            binary(op, a, b)?
        }
        ArithmeticExpr::Conditional(c, t, f) => {
            if eval(sh, c)? != 0 {
                eval(sh, t)?
            } else {
                eval(sh, f)?
            }
        }
        ArithmeticExpr::Assignment(t, e) => {
            let v = eval(sh, e)?;
            target_set(sh, t, v)?;
            v
        }
        ArithmeticExpr::BinaryAssignment(op, t, e) => {
            let cur = target_get(sh, t)?;
            let rhs = eval(sh, e)?;
            let v = binary(op, cur, rhs)?;
            target_set(sh, t, v)?;
            v
        }
        ArithmeticExpr::UnaryAssignment(op, t) => {
            let cur = target_get(sh, t)?;
            let (new, result) = match op {
                UnaryAssignmentOperator::PrefixIncrement => (cur + 1, cur + 1),
                UnaryAssignmentOperator::PrefixDecrement => (cur - 1, cur - 1),
                UnaryAssignmentOperator::PostfixIncrement => (cur + 1, cur),
                UnaryAssignmentOperator::PostfixDecrement => (cur - 1, cur),
            };
            target_set(sh, t, new)?;
            result
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn evaluates() {
        let mut sh = Shell::new("/", &Default::default());
        sh.set_var("x", "5");
        assert_eq!(eval_str(&mut sh, "1 + 2 * 3").unwrap(), 7);
        assert_eq!(eval_str(&mut sh, "x * 2").unwrap(), 10);
        assert_eq!(eval_str(&mut sh, "x++").unwrap(), 5);
        assert_eq!(sh.get_var("x").unwrap(), "6");
        assert_eq!(eval_str(&mut sh, "10 % 3 == 1 ? 7 : 8").unwrap(), 7);
        assert_eq!(eval_str(&mut sh, "2 ** 10").unwrap(), 1024);
        assert!(eval_str(&mut sh, "1 / 0").is_err());
    }
}

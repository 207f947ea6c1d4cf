//! Unit tests of the validator: clean kernels, nesting, declarations, operands and calls,
//! practice-vs-guide warnings.

use super::*;
use crate::parse;

fn diags(src: &str) -> Vec<(Option<&'static str>, &'static str, u32)> {
    let (p, d) = parse(src);
    assert!(d.iter().all(|d| !d.is_error()), "{d:?}");
    validate(&p.unwrap())
        .into_iter()
        .map(|d| {
            (
                if d.is_error() { Some("error") } else { None },
                d.code,
                d.span.line,
            )
        })
        .collect()
}

fn errors(src: &str) -> Vec<(&'static str, u32)> {
    diags(src)
        .into_iter()
        .filter(|d| d.0.is_some())
        .map(|d| (d.1, d.2))
        .collect()
}

#[test]
fn parse_and_validate_collects_both() {
    let (p, d) = parse_and_validate("il_cs\nbogus\nendif\nend\n");
    assert!(p.is_none());
    let codes: Vec<_> = d.iter().map(|d| d.code).collect();
    assert_eq!(codes, vec![codes::UNKNOWN_OPCODE, codes::NESTING]);
    let (p, d) = parse_and_validate("il_cs_2_0\nend\n");
    assert!(p.is_some() && d.is_empty());
}

#[test]
fn clean_kernel_has_no_diagnostics() {
    let src = "il_cs_2_0\ndcl_num_thread_per_group 64\ndcl_raw_uav_id(0)\ndcl_literal l0, 2, 0, 0, 0\n\
               mov r0.x, vAbsTidFlat.x\nishl r1.x, r0.x, l0.x\nuav_raw_store_id(0) mem.x, r1.x, r0.x\nend\n";
    assert_eq!(diags(src), vec![]);
}

#[test]
fn nesting_errors() {
    let e = errors("il_cs\nif_logicalnz r0.x\nwhileloop\nendif\nbreak\nelse\nendloop\nend\n");
    assert_eq!(
        e,
        vec![(codes::NESTING, 4), (codes::NESTING, 6), (codes::END, 8)]
    );
    let e = errors("il_cs\nwhileloop\nif_logicalz r0.x\nendloop\n");
    assert_eq!(
        e,
        vec![
            (codes::NESTING, 4),
            (codes::NESTING, 2),
            (codes::NESTING, 3)
        ]
    );
    let e =
        errors("il_cs\nswitch r0.x\ncase 1\ncase 1\ndefault\ndefault\nendswitch\ncontinue\nend\n");
    assert_eq!(
        e,
        vec![
            (codes::DUPLICATE, 4),
            (codes::DUPLICATE, 6),
            (codes::NESTING, 8)
        ]
    );
}

#[test]
fn declarations() {
    let e = errors("il_cs\ndcl_cb cb0[2]\ndcl_cb cb0[2]\nmov r0, cb1[0]\nuav_raw_load_id(3) r0, r1.x\nmov r0, x0[1]\nlds_load_id(0) r0, r1.x\nend\n");
    assert_eq!(
        e,
        vec![
            (codes::DUPLICATE, 3),
            (codes::UNDECLARED, 4),
            (codes::UNDECLARED, 5),
            (codes::UNDECLARED, 6),
            (codes::UNDECLARED, 7)
        ]
    );
    let d = diags("il_cs\nmov r0, l3\nmov r1, cb0[9]\ndcl_cb cb0[2]\nmov r2, cb0[9]\nend\n");
    assert!(d.contains(&(None, codes::PRACTICE, 2)));
    assert!(d.contains(&(Some("error"), codes::UNDECLARED, 3)));
    assert!(d.contains(&(None, codes::PRACTICE, 5)));
}

#[test]
fn operands_and_calls() {
    let e = errors("il_cs\nmov r0\nadd l0, r1, r2\nmov r0, mem\ncall 5\nmov r0, r1[2]\nend\n");
    assert_eq!(
        e,
        vec![
            (codes::OPERAND_COUNT, 2),
            (codes::OPERAND_KIND, 3),
            (codes::OPERAND_KIND, 4),
            (codes::NO_SUCH_FUNCTION, 5),
            (codes::BAD_INDEX, 6)
        ]
    );
}

#[test]
fn practice_warnings_are_not_errors() {
    let src = "il_cs\ndcl_num_thread_per_group 64\ndcl_lds_id(0) 256\nwhileloop\nfence_threads_lds\nbreak\nendloop\ncall 1\nendmain\nfunc 1\nret_dyn\nret\nend\n";
    let d = diags(src);
    assert!(d.iter().all(|d| d.0.is_none()), "{d:?}");
    assert!(d.contains(&(None, codes::PRACTICE, 5)));
}

#[test]
fn empty_programs_are_errors_at_line_one() {
    for src in [
        "",
        "  \n\n",
        "; comment\n",
        "il_cs_2_0\n",
        "il_cs_2_0 ; nothing else\n",
    ] {
        assert_eq!(errors(src), vec![(codes::BAD_VERSION, 1)], "{src:?}");
    }
    assert!(errors("il_cs_2_0\nend\n").is_empty());
}

#[test]
fn the_statement_limit_stops_the_parser_at_the_statement() {
    let src = "il_cs_2_0\nmov r0, r1\nmov r0, r1\nmov r0, r1\nend\n";
    let (p, d) = crate::parse_and_validate_limited(src, 2);
    assert!(p.is_none());
    assert_eq!(
        d.iter().map(|d| (d.code, d.span.line)).collect::<Vec<_>>(),
        [(codes::TOO_MANY_STATEMENTS, 4)]
    );
    assert!(crate::parse_and_validate_limited(src, 4).0.is_some());
}

/// Undeclared literals are found wherever a statement reads them: as a source, as a
/// source's index register and as a destination's index register.
#[test]
fn undeclared_literals_in_every_operand_position() {
    let src = "il_cs_2_0\ndcl_indexed_temp_array x0[4]\ndcl_literal l0, 1, 2, 3, 4\n\
               mov r0, l0\nmov r1, l5\nmov r2, x0[l6.x]\nmov x0[l7.x], r2\nmov r3, l5\nend\n";
    let msgs: Vec<String> = parse_and_validate(src)
        .1
        .iter()
        .filter(|d| d.message.contains("never declared"))
        .map(|d| format!("{}:{}", d.span.line, d.message))
        .collect();
    assert_eq!(
        msgs,
        [
            "5:literal l5 is never declared; it reads as zero",
            "6:literal l6 is never declared; it reads as zero",
            "7:literal l7 is never declared; it reads as zero",
        ]
    );
}

/// The summary `validate_declared` returns is the whole-program `Declarations::collect` of
/// the statements before the first `end` (what lowering and the interpreter read), for
/// repeated literals, functions, a pixel shader's version line, a program with statements
/// after `end` and one with errors.
#[test]
fn validate_declared_returns_the_collected_summary() {
    for src in [
        "il_cs_2_0\ndcl_literal l0, 1, 2, 3, 4\ndcl_raw_uav_id(0)\nmov r0, l0\ndcl_literal l0, 5, 6, 7, 8\n\
         mov r1, l0\ncall 3\nendmain\nfunc 3\nmov r2, l1\nret\nendfunc\nend\n",
        "il_ps_2_0\ndcl_num_thread_per_group 8, 4\ndcl_cb cb0[2]\nmov r0, cb0[1]\nend\n\
         dcl_raw_uav_id(3)\nmov r1, r0\nend\n",
        "il_cs_2_0\ndcl_lds_id(1) 256\nmov r0, r9\nendloop\nend\n",
        "",
    ] {
        let (p, _) = crate::parser::parse_lossy_limited(src, usize::MAX);
        let (_, decls) = validate_declared(&p);
        let cut = end::before_end(&p);
        assert_eq!(
            decls,
            Declarations::collect(cut.version.as_ref(), &cut.statements),
            "{src}"
        );
    }
}

/// Instructions skip the declaration checks, but not those that share a declaration's
/// payload: a non-declaration of the numbers form still has its count checked, and `func`
/// labels still enter the summary (a second definition is an error).
#[test]
fn instructions_with_declaration_payloads_are_still_checked() {
    let d = errors("il_cs_2_0\nmov r0, r1\nhs_fork_phase 1, 2\nend\n");
    assert!(d.contains(&(codes::BAD_DECL, 3)), "{d:?}");
    let d = errors("il_cs_2_0\ncall 1\nendmain\nfunc 1\nret\nendfunc\nfunc 1\nret\nendfunc\nend\n");
    assert!(d.contains(&(codes::DUPLICATE, 7)), "{d:?}");
}

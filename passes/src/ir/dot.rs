//! Graphviz DOT output of a function's CFG (via petgraph), one node per block labelled with
//! the block header and its instructions, the edges of a `brif` labelled `true`/`false` (and
//! `br_table` edges with their case index, the default as `default`); for `--dump-after`
//! style debugging.
//!
//! Guarantees: the output is a complete `digraph` that `dot` accepts; labels escape quotes,
//! backslashes and braces.

use petgraph::dot::{Config, Dot};
use petgraph::visit::EdgeRef;

use super::cfg::ControlFlowGraph;
use super::function::Function;
use super::instructions::InstructionData;
use super::write::{inst_to_string, write_block_header};
use super::Block;

fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '"' | '\\' | '{' | '}' | '<' | '>' | '|' => {
                out.push('\\');
                out.push(c);
            }
            '\n' => out.push_str("\\l"),
            c => out.push(c),
        }
    }
    out
}

/// Renders the CFG of `func` as DOT text.
pub fn function_to_dot(func: &Function) -> String {
    let cfg = ControlFlowGraph::with_function(func);
    let g = cfg.to_petgraph(func);
    let labels = g.map(
        |_, &b| {
            let mut s = String::new();
            // Writing to a String cannot fail.
            let _ = write_block_header(&mut s, func, b);
            for i in func.layout.block_insts(b) {
                s.push_str(&inst_to_string(func, i));
                s.push('\n');
            }
            escape(&s)
        },
        |_, _| String::new(),
    );
    // The label of the edge from -> to: which operand(s) of the terminator name `to`.
    let edge_label = |from: Block, to: Block| -> String {
        let Some(t) = func.terminator(from) else {
            return String::new();
        };
        let data = &func.dfg.insts[t];
        let dests = data.branch_destinations();
        let names: Vec<String> = dests
            .iter()
            .enumerate()
            .filter(|(_, d)| d.block == to)
            .map(|(i, _)| match data {
                InstructionData::Brif { .. } => if i == 0 { "true" } else { "false" }.to_owned(),
                // `br_table x, default, [table...]`: dests = [default, case 0, case 1, ...].
                InstructionData::BrTable { .. } if i == 0 => "default".to_owned(),
                InstructionData::BrTable { .. } => (i - 1).to_string(),
                _ => String::new(),
            })
            .filter(|n| !n.is_empty())
            .collect();
        names.join(",")
    };
    let body = format!(
        "{}",
        Dot::with_attr_getters(
            &labels,
            &[Config::EdgeNoLabel, Config::NodeNoLabel],
            &|_, e| {
                let l = edge_label(g[e.source()], g[e.target()]);
                if l.is_empty() {
                    String::new()
                } else {
                    format!("label=\"{}\"", escape(&l))
                }
            },
            &|_, (_, l)| format!("shape=box, fontname=monospace, label=\"{l}\""),
        )
    );
    body.replacen(
        "digraph {",
        &format!("digraph \"{}\" {{", escape(&func.name)),
        1,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::reader::parse_function_text;

    #[test]
    fn dot_has_nodes_and_edges() {
        let f = parse_function_text(
            "kernel %k {\nblock0:\n v0 = pconst true\n brif v0, block1, block2\nblock1:\n jump block2\nblock2:\n return\n}",
        )
        .unwrap();
        let d = function_to_dot(&f);
        assert!(d.starts_with("digraph \"k\" {"), "{d}");
        assert_eq!(d.matches("->").count(), 3, "{d}");
        assert!(d.contains("brif v0, block1, block2"), "{d}");
        assert_eq!(d.matches("label=\"true\"").count(), 1, "{d}");
        assert_eq!(d.matches("label=\"false\"").count(), 1, "{d}");
    }
}

//! Cynthia's printed measured times: Sec. 5.3's profiling runs (30
//! iterations of each workload on one m4.xlarge docker), shipped as a
//! measured-run set whose runs say what they lack. Its other measured
//! times are drawn in figures (Fig. 6-10), not printed.

use crate::runs::papers::{PaperCheck, PaperSet, PaperTable};

pub static PAPER_CHECK: PaperCheck = PaperCheck {
    tables: &[PaperTable {
        table: "Sec. 5.3",
        what: "30 profiling iterations of each workload on one m4.xlarge docker",
        prefix: "S5.3 ",
        accuracy: None,
        leaves_out: "the runs are the profiling that Table 4's w_iter was computed from, and the paper prints no c_base: no prediction here would be independent of them",
    }],
    sets: &[PaperSet {
        file: "cynthia-sec5-3-profiling-runs.json",
        text: include_str!("../../../public/examples/cynthia-sec5-3-profiling-runs.json"),
        factors: &[],
    }],
    notes: &[
        "Sec. 5.3 prints the profiling time of 30 iterations (0.9 s, 4.0, 6.0 and 10.4 min); the per-iteration times are those divided by 30. Its prediction accuracy (Fig. 6-10) is drawn, not printed: no cell of it is shipped.",
    ],
};

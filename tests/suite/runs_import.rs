//! Measured runs from a file: CSV rows of one label make one run with
//! several worker groups, JSON as the scenario holds them, and files that
//! cannot be runs refused with a sentence naming the line.

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use ddnn_planner::models::importer;
use ddnn_planner::runs::files::{apply_runs, parse_runs, RunsFileError, EMPTY};
use ddnn_planner::runs::Run;
use ddnn_planner::scenario::Scenario;

const TWO_GROUPS: &str = "\
label,instance,count,batch_size,iteration_s,source
# Zeng et al. Table 6, VGG-16
T6 bs 32,Quadro RTX 4000,2,32,28.66,\"Zeng et al. Table 6, Vgg16, bs 32, MT\"
T6 bs 32,GeForce GTX 1060 6GB,1,32
T6 bs 16,Quadro RTX 4000,2,16,28.57
T6 bs 16,GeForce GTX 1060 6GB,1,16,28.57
";

#[test]
fn csv_rows_of_one_label_are_one_run_with_its_groups() {
    let runs = parse_runs(TWO_GROUPS).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(runs.len(), 2);
    let r = &runs[0];
    assert_eq!(r.label, "T6 bs 32");
    assert_eq!(r.workers.len(), 2);
    assert_eq!(
        (
            r.workers[1].instance.as_str(),
            r.workers[1].count,
            r.workers[1].batch_size
        ),
        ("GeForce GTX 1060 6GB", 1, 32)
    );
    assert_eq!((r.iteration_s, r.throughput), (Some(28.66), None));
    assert_eq!(r.source, "Zeng et al. Table 6, Vgg16, bs 32, MT");
    assert_eq!(r.global_batch(), 96.0);
    assert_eq!(runs[1].iteration_s, Some(28.57));
    assert_eq!(runs[1].source, "");

    // Into a scenario: the runs replace its own, and validate there.
    let mut s = Scenario::example();
    let msg = apply_runs(&mut s, TWO_GROUPS).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(msg, "2 measured runs (4 worker groups)");
    assert_eq!(s.runs, runs);
    assert!(ddnn_planner::models::validate(&s).is_empty());
}

#[test]
fn throughput_columns_any_order_and_a_byte_order_mark() {
    let text =
        "\u{feff}throughput,batch_size,count,instance,label\n120.5,64,4,Quadro RTX 4000,four\n";
    let runs = parse_runs(text).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(runs.len(), 1);
    assert_eq!(
        (runs[0].iteration_s, runs[0].throughput),
        (None, Some(120.5))
    );
    assert_eq!(runs[0].workers[0].count, 4);
    // The page's import worker reads the same bytes to the same runs.
    let imp = importer("runs").unwrap_or_else(|| panic!("the runs importer"));
    let json = imp
        .run("runs.csv", text.as_bytes().to_vec(), "null")
        .unwrap_or_else(|e| panic!("{e}"));
    let read: Vec<Run> = serde_json::from_str(&json).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(read, runs);
}

#[test]
fn an_empty_file_is_refused_as_the_other_importers_say_it() {
    assert!(EMPTY.starts_with("the runs file is empty: give a header row"));
    for text in [
        "",
        "   \n\n",
        "\u{feff}",
        "# only a comment\n",
        "label,instance,count,batch_size,iteration_s\n",
        "[]",
        "{\"runs\": []}",
    ] {
        assert_eq!(parse_runs(text), Err(RunsFileError::Empty), "{text:?}");
        assert_eq!(RunsFileError::Empty.to_string(), EMPTY);
    }
    let mut s = Scenario::example();
    let e = apply_runs(&mut s, "")
        .err()
        .unwrap_or_else(|| panic!("refused"));
    assert_eq!(e.to_string(), EMPTY);
}

#[test]
fn json_reads_a_list_or_a_scenario() {
    let text = include_str!("../../public/examples/zeng-tables6-7-vgg16-runs.json");
    let from_scenario = parse_runs(text).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(from_scenario.len(), 4);
    assert!(from_scenario[2].ps.is_some(), "a run's own PS side");
    let list = serde_json::to_string(&from_scenario).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(parse_runs(&list), Ok(from_scenario));
    assert_eq!(
        parse_runs("[{\"label\": 1}]"),
        Err(RunsFileError::NoRunsInJson)
    );
    let e = parse_runs("[{")
        .err()
        .map(|e| e.to_string())
        .unwrap_or_default();
    assert!(e.starts_with("not JSON"), "{e}");
}

#[test]
fn csv_mistakes_name_their_line() {
    let err = |t: &str| {
        parse_runs(t)
            .err()
            .unwrap_or_else(|| panic!("{t:?} read"))
            .to_string()
    };
    assert!(err("label,instance,count\na,b,1\n").contains("lacks batch_size"));
    assert!(err("label,instance,count,batch_size\na,b,1,2\n").contains("iteration_s"));
    assert!(
        err("label,instance,count,batch_size,seconds\n").contains("\"seconds\" is not a column")
    );
    let e = err("label,instance,count,batch_size,iteration_s\na,x,2,32,1.5\na,y,1,32,1.6\n");
    assert!(
        e.starts_with("line 3: run 'a' has the iteration time [s] 1.5 on line 2"),
        "{e}"
    );
    let e = err("label,instance,count,batch_size,iteration_s\na,x,two,32,1.5\n");
    assert!(e.starts_with("line 2:") && e.contains("count"), "{e}");
    let e = err("label,instance,count,batch_size,iteration_s\na,x,2.5,32,1.5\n");
    assert!(e.contains("not a whole number"), "{e}");
    let e = err("label,instance,count,batch_size,iteration_s\n,x,2,32,1.5\n");
    assert!(e.contains("no label"), "{e}");
    let e = err("label,instance,count,batch_size,iteration_s\na,x,2,32,1.5,extra\n");
    assert!(e.contains("6 fields"), "{e}");
}

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

// Layer table import (CSV, TSV, JSON) and CSV export.

use ddnn_planner::workload::network::MAX_LAYERS;
use ddnn_planner::workload::presets::network_presets;
use ddnn_planner::workload::table::{
    layers_to_csv, parse_layer_table, TableError, MAX_TABLE_BYTES,
};
use ddnn_planner::workload::{Layer, LayerKind};

fn two_layers() -> Vec<Layer> {
    vec![Layer::conv("c1", 3, 3, 16, 32), Layer::fc("f1", 16384, 10)]
}

fn err_text(text: &str) -> String {
    match parse_layer_table(text) {
        Ok(l) => panic!("expected an error, got {l:?}"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn csv_parses() {
    let csv =
        "name,kind,inch,kh,kw,outn,outh,outw\nc1,conv,3,3,3,16,32,32\nf1,fc,16384,1,1,10,1,1\n";
    assert_eq!(parse_layer_table(csv), Ok(two_layers()));
}

#[test]
fn csv_column_order_case_spaces_comments_blank_lines_extra_columns() {
    let csv = "\u{feff}# exported from a spreadsheet\n\n  OUTW , Kind,Name ,inch,KH,kw,outn,outh, flop \n\
               32, Conv ,c1,3,3,3,16,32, 123\n   \n1,Dense,f1,16384,1,1,10,1,x\n";
    assert_eq!(parse_layer_table(csv), Ok(two_layers()));
}

#[test]
fn tsv_parses() {
    let tsv = "name\tkind\tinch\tkh\tkw\toutn\touth\toutw\tparams\n\
               c1\tconv\t3\t3\t3\t16\t32\t32\t\n\
               f1\tfc\t16384\t1\t1\t10\t1\t1\t100\n";
    let mut expected = two_layers();
    if let Some(l) = expected.get_mut(1) {
        l.params = Some(100);
    }
    let layers = parse_layer_table(tsv).unwrap();
    assert_eq!(layers, expected);
    assert_eq!(layers[1].weights(), 100);
}

#[test]
fn semicolon_csv_and_float_like_numbers() {
    let csv = "name;kind;inch;kh;kw;outn;outh;outw\nc1;conv;3.0;3;3;16;3.2e1;32\n";
    let layers = parse_layer_table(csv).unwrap();
    assert_eq!(layers, vec![Layer::conv("c1", 3, 3, 16, 32)]);
}

#[test]
fn json_array_and_object_parse() {
    let arr = r#"[
      {"name": "c1", "kind": "conv", "inch": 3, "kh": 3, "kw": 3, "outn": 16, "outh": 32, "outw": 32},
      {"name": "f1", "kind": "fc", "inch": 16384, "kh": 1, "kw": 1, "outn": 10, "outh": 1, "outw": 1}
    ]"#;
    assert_eq!(parse_layer_table(arr), Ok(two_layers()));
    let obj = format!(r#"  {{"name": "net", "layers": {arr}, "pushes": 3}}"#);
    assert_eq!(parse_layer_table(&obj), Ok(two_layers()));
    // Layer's own serialization reads back; kind aliases work as in CSV.
    let ser = serde_json::to_string(&two_layers()).unwrap();
    assert_eq!(parse_layer_table(&ser), Ok(two_layers()));
    let alias = arr.replace("\"fc\"", "\"Dense\"");
    assert_eq!(parse_layer_table(&alias), Ok(two_layers()));
}

#[test]
fn json_unnamed_layers_get_names() {
    let arr = r#"[{"kind": "fc", "inch": 4, "kh": 1, "kw": 1, "outn": 2, "outh": 1, "outw": 1}]"#;
    let layers = parse_layer_table(arr).unwrap();
    assert_eq!(layers[0].name, "layer1");
    assert_eq!(layers[0].kind, LayerKind::Fc);
}

#[test]
fn json_errors_name_the_line() {
    let bad_kind = "[\n{\"name\": \"p\", \"kind\": \"pool\", \"inch\": 1, \"kh\": 1, \"kw\": 1, \"outn\": 1, \"outh\": 1, \"outw\": 1}\n]";
    let e = err_text(bad_kind);
    assert!(
        e.contains("line 2") && e.contains("unknown kind 'pool'") && e.contains("conv"),
        "{e}"
    );

    let zero = "[\n{\"name\": \"z\", \"kind\": \"conv\", \"inch\": 1, \"kh\": 3, \"kw\": 3, \"outn\": 0, \"outh\": 1, \"outw\": 1}\n]";
    let e = err_text(zero);
    assert!(
        e.contains("line 2") && e.contains("outn must be at least 1"),
        "{e}"
    );

    let e = err_text("[\n{\"name\": \"z\", \"kind\": \"conv\", \"inch\": \"x\"}]");
    assert!(e.contains("line 2"), "{e}");
    let e = err_text("{\"name\": \"no layers here\"}");
    assert!(e.contains("layers"), "{e}");
    assert_eq!(parse_layer_table("[]"), Err(TableError::Empty));
    assert_eq!(
        parse_layer_table("{\"layers\": []}"),
        Err(TableError::Empty)
    );
    assert!(parse_layer_table("[1, 2").is_err());
}

#[test]
fn bad_number_names_line_and_column() {
    let csv = "name,kind,inch,kh,kw,outn,outh,outw\n\
               c1,conv,3,3,3,16,32,32\n\
               c2,conv,16,3,3,16,32,32\n\
               c3,conv,16,3,3,16,abc,32\n";
    assert_eq!(
        parse_layer_table(csv),
        Err(TableError::BadNumber {
            line: 4,
            column: "outh".into(),
            value: "abc".into()
        })
    );
    assert_eq!(
        err_text(csv),
        "line 4, column outh: 'abc' is not a whole number"
    );
    for bad in [
        "-3",
        "2.5",
        "",
        "1e400",
        "NaN",
        "inf",
        "99999999999999999999999",
    ] {
        let csv = format!("name,kind,inch,kh,kw,outn,outh,outw\nc,conv,{bad},3,3,1,1,1\n");
        let e = err_text(&csv);
        assert!(e.starts_with("line 2, column inch:"), "{bad}: {e}");
    }
}

#[test]
fn unknown_kind_lists_accepted_kinds() {
    let csv = "name,kind,inch,kh,kw,outn,outh,outw\n\n# comment\np1,maxpool,3,2,2,3,16,16\n";
    let e = err_text(csv);
    assert!(
        e.starts_with("line 4, column kind: unknown kind 'maxpool'"),
        "{e}"
    );
    assert!(e.contains("conv") && e.contains("fc"), "{e}");
}

#[test]
fn missing_column_is_named() {
    let csv = "name,kind,inch,kh,kw,outn,outw\nc1,conv,3,3,3,16,32\n";
    let e = parse_layer_table(csv).unwrap_err();
    assert!(
        matches!(&e, TableError::MissingColumn { line: 1, column, .. } if column == "outh"),
        "{e:?}"
    );
    assert!(
        e.to_string().starts_with("line 1, column outh: missing"),
        "{e}"
    );
    // No header at all: say so.
    let e = err_text("c1,conv,3,3,3,16,32,32\n");
    assert!(e.contains("header row"), "{e}");
}

#[test]
fn duplicate_short_and_long_rows() {
    let e = err_text("name,kind,inch,kh,kw,outn,outh,outw,KH\nc,conv,1,1,1,1,1,1,1\n");
    assert!(e.contains("kh") && e.contains("twice"), "{e}");
    let e = err_text("name,kind,inch,kh,kw,outn,outh,outw\nc,conv,1,1,1,1\n");
    assert!(e.starts_with("line 2, column outh: no value"), "{e}");
    let e = err_text("name,kind,inch,kh,kw,outn,outh,outw\nconv, 1x1,conv,1,1,1,1,1,1\n");
    assert!(e.starts_with("line 2: 9 fields"), "{e}");
}

#[test]
fn zero_dimension_and_bad_fc_are_rejected_with_line() {
    let csv =
        "name,kind,inch,kh,kw,outn,outh,outw\nc1,conv,3,3,3,16,32,32\nc2,conv,16,3,0,16,32,32\n";
    let e = err_text(csv);
    assert!(
        e.starts_with("line 3:") && e.contains("kw must be at least 1"),
        "{e}"
    );
    let csv = "name,kind,inch,kh,kw,outn,outh,outw\nf,fc,16,1,1,16,2,1\n";
    let e = err_text(csv);
    assert!(
        e.starts_with("line 2:") && e.contains("fully connected"),
        "{e}"
    );
    let csv = "name,kind,inch,kh,kw,outn,outh,outw\nc,conv,16,1,1,16,99999999,1\n";
    assert!(err_text(csv).contains("larger than"));
}

#[test]
fn huge_input_is_rejected() {
    let header = "name,kind,inch,kh,kw,outn,outh,outw\n";
    let mut big = String::from(header);
    while big.len() <= MAX_TABLE_BYTES {
        big.push_str("c,conv,1,1,1,1,1,1\n");
    }
    assert!(matches!(
        parse_layer_table(&big),
        Err(TableError::TooLarge { .. })
    ));
    assert!(err_text(&big).contains("5 MiB"));
}

#[test]
fn too_many_rows_are_rejected() {
    let mut csv = String::from("name,kind,inch,kh,kw,outn,outh,outw\n");
    for _ in 0..=MAX_LAYERS {
        csv.push_str("c,conv,1,1,1,1,1,1\n");
    }
    assert!(csv.len() <= MAX_TABLE_BYTES);
    assert_eq!(
        parse_layer_table(&csv),
        Err(TableError::TooManyLayers {
            line: MAX_LAYERS + 2,
            max: MAX_LAYERS
        })
    );
    let one = r#"{"kind":"fc","inch":1,"kh":1,"kw":1,"outn":1,"outh":1,"outw":1}"#;
    let json = format!("[{}]", vec![one; MAX_LAYERS + 1].join(","));
    assert!(matches!(
        parse_layer_table(&json),
        Err(TableError::TooManyJsonLayers { .. })
    ));
}

#[test]
fn empty_inputs() {
    for text in ["", "   \n\t\n", "\u{feff}", "# only a comment\n"] {
        assert_eq!(parse_layer_table(text), Err(TableError::Empty), "{text:?}");
    }
    assert_eq!(
        parse_layer_table("name,kind,inch,kh,kw,outn,outh,outw\n"),
        Err(TableError::Empty)
    );
}

#[test]
fn csv_round_trips() {
    let mut layers = two_layers();
    layers.push(Layer {
        name: "odd, \"quoted\"\tname".into(),
        params: Some(42),
        ..Layer::conv("x", 8, 1, 8, 4)
    });
    layers.push(Layer::conv("#hash", 1, 1, 1, 1));
    let csv = layers_to_csv(&layers);
    assert!(csv.starts_with("name,kind,inch,kh,kw,outn,outh,outw,params\n"));
    assert_eq!(parse_layer_table(&csv), Ok(layers));
    for p in network_presets() {
        let l = p.network.layers;
        if !l.is_empty() {
            assert_eq!(parse_layer_table(&layers_to_csv(&l)), Ok(l), "{}", p.id);
        }
    }
}

#[test]
fn garbage_never_panics() {
    let samples = [
        "\"",
        "name,kind\n\"unterminated",
        "{",
        "[{]",
        "name\tkind\n\t\t\t\t\t",
        ",,,,,,,,\n,,,,,,,,",
        "\u{0}\u{1}",
        "name,kind,inch,kh,kw,outn,outh,outw\n\"a\"b,conv,1,1,1,1,1,1",
        "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[",
    ];
    for s in samples {
        let _ = parse_layer_table(s);
    }
    let deep = "[".repeat(100_000);
    assert!(parse_layer_table(&deep).is_err());
}

#[test]
fn line_numbers_count_comments_blank_and_multiline_rows() {
    let csv = "# c\nname,kind,inch,kh,kw,outn,outh,outw\n\n# between\nc1,conv,3,3,3,16,32,32\n\
               \"two\nline name\",conv,1,1,1,1,1,1\n# again\n\n  \nbad,conv,1,1,1,1,1,x\n";
    let e = err_text(csv);
    assert!(e.starts_with("line 11, column outw:"), "{e}");
}

#[test]
fn json_error_line_is_the_offending_object() {
    let ok = r#"{"name": "a", "kind": "fc", "inch": 1, "kh": 1, "kw": 1, "outn": 1, "outh": 1, "outw": 1}"#;
    let zero = r#"{"name": "z", "kind": "fc", "inch": 0, "kh": 1, "kw": 1, "outn": 1, "outh": 1, "outw": 1}"#;
    let text = format!("[\n{ok},\n{zero},\n{ok}\n]");
    let e = err_text(&text);
    assert!(e.starts_with("JSON, line 3, character"), "{e}");
    assert!(e.contains("layer 'z': inch must be at least 1"), "{e}");
    assert!(!e.contains(" at line "), "{e}");
    let missing =
        r#"{"name": "m", "kind": "fc", "inch": 1, "kh": 1, "kw": 1, "outn": 1, "outh": 1}"#;
    let e = err_text(&format!("[\n{ok},\n{missing}\n]"));
    assert!(
        e.starts_with("JSON, line 3") && e.contains("missing field `outw`"),
        "{e}"
    );
    let dup = r#"{"name": "d", "kind": "fc", "kind": "fc", "inch": 1}"#;
    let e = err_text(&format!("[{dup}]"));
    assert!(e.contains("duplicate field `kind`"), "{e}");
}

//! The streamed reading held to the held one on chosen files: bad and odd manifests,
//! repeats beside bad rows, and repeats of items.

use super::*;

#[test]
fn bad_manifests_give_the_held_readings_errors() {
    let files = two_tasks();
    let good = manifest(&[1, 2], "x", true);
    for bad in [
        String::new(),
        "{".to_string(),
        "[]".to_string(),
        good.replace("\"seed\":1", "\"seed\":\"1\""),
        good.replace("\"task_ids\":[\"t1\"", "\"task_ids\":[1"),
        good.replace("\"groups\":[]", "\"groups\":{}"),
        good.replace("\"name\":\"holdout\"", "\"name\":\"test\""),
        good.replace("\"name\":\"holdout\",", ""),
        good.replace(",\"holdout_power\"", ",\"holdout_power\":1,\"x\""),
        good.clone() + " x",
        good.replace("\"schema\"", "\"schema\":\"a\",\"schema\""),
        manifest(&[1, 2], "x", false),
        good.replace(
            "\"task_ids\":[\"t1\",\"t2\"]}",
            "\"task_ids\":[\"t1\",\"t2\"],\"name\":\"holdout\"}",
        ),
    ] {
        let manifest = input("manifest.json", bad.clone());
        let settings = settings(0, 0, false, false);
        for tuning in tunings() {
            let (held, streamed) = both(&files, None, Some(&manifest), &settings, tuning);
            assert_eq!(held, streamed, "{bad}");
        }
    }
}

#[test]
fn a_repeat_and_a_bad_row_are_told_apart_as_the_held_reading_tells_them() {
    let fine = "task_id,score\na,1\nb,0\nc,1\n";
    for tricky in [
        "task_id,score\na,1\na,2\n",
        "task_id,score\na,1\nb,x\na,0\n",
        "task_id,score\na,1\nb,0\nb,1\na,1\n",
        "task_id,score\na,1\nb,0\n ,1\nb,1\n",
        "task_id,score\na,1\na,0\na,1\n",
        "task_id,score\na,1\na,x\n",
        "task_id,score\nb,1\nc,0\na,1\nc,x\n",
        "task_id,score\nc,1\nb,0\na,1\n",
    ] {
        for (base, cand) in [(tricky, fine), (fine, tricky), (tricky, tricky)] {
            let files = [
                input("b.csv", base.to_string()),
                input("c.csv", cand.to_string()),
            ];
            for tuning in tunings() {
                let settings = settings(2, 0, false, false);
                let (held, streamed) = both(&files, None, None, &settings, tuning);
                assert_eq!(held, streamed, "{base:?} {cand:?}");
            }
        }
    }
}

#[test]
fn manifests_the_fast_reading_leaves_to_serde_read_as_the_held_reading_reads_them() {
    let files = two_tasks();
    let good = manifest(&[1, 2], "x", true);
    let ids = r#""task_ids":["t1","t2"]"#;
    for variant in [
        good.clone(),
        // Pretty-printed, as split writes it.
        serde_json::to_string_pretty(&serde_json::from_str::<serde_json::Value>(&good).unwrap()).unwrap(),
        good.replace(r#""t1""#, r#""t\u0031""#),
        good.replace(r#""t2"]"#, r#""t2\\"]"#),
        good.replace(ids, r#""task\u005fids":["t1","t2"]"#),
        good.replace(r#""name":"holdout""#, r#""name":"hold\u006fut""#),
        good.replace(r#""t1""#, "\"t\u{1}1\""),
        good.replace(r#""groups":[]"#, r#""groups":[1]"#),
        good.replace(r#""groups":[]"#, r#""groups":["a" "b"]"#),
        good.replace(ids, r#""task_ids":["t1","t2",]"#),
        good.replace(ids, "\"task_ids\" : [ \"t1\" ,\n\t\"t2\" ] "),
        good.replace(r#""splits":["#, r#""splits":["x","#),
        good.replace(r#""splits":["#, r#""other":{"splits":[{"task_ids":["t9"]}]},"splits":["#),
        good.replace(
            r#"}],"holdout_power""#,
            r#"},{"name":"holdout","file":{"path":"h","sha256":"y"},"tasks":1,"groups":[],"task_ids":["t7"]}],"holdout_power""#,
        ),
        good.replace(ids, r#""task_ids":["t1","t2"],"task_ids":["t3"]"#),
        good.replace(r#""t1""#, r#""t1"#),
        good[..good.len() - 40].to_string(),
        format!("\u{feff}{good}"),
        good.replace(r#""t1""#, "\"t\u{e9}1\""),
        good.replace(r#""t1","t2""#, r#""t2","t1""#),
        good.replace(ids, r#""task_ids":["t1"]"#),
    ] {
        let manifest = input("manifest.json", variant.clone());
        let settings = settings(0, 0, false, false);
        for tuning in tunings() {
            let (held, streamed) = both(&files, None, Some(&manifest), &settings, tuning);
            assert_eq!(held, streamed, "{variant}");
        }
    }
}

#[test]
fn scores_that_hold_repeats_of_items_are_decided_on_the_items_as_the_held_reading_decides() {
    // Items q0..q29 run three times each (`q<i>#<r>` in group `q<i>`), in a different
    // order in each file: the streamed reading hands them to the reading that
    // collapses repeats into items.
    let file = |path: &str, lift: u32, order: u8| {
        let mut rows = Vec::new();
        for item in 0..30_u32 {
            for repeat in 1..=3_u32 {
                let right = (item * 7 + repeat * 3 + lift) % 5 < 2 + lift;
                rows.push(format!("q{item}#{repeat},q{item},{}", u8::from(right)));
            }
        }
        let rows = ordered(&rows, order, 5);
        input(path, format!("task_id,group,score\n{}\n", rows.join("\n")))
    };
    let files = [file("b.csv", 0, 0), file("c.csv", 1, 1)];
    // Also with a task list that names the items, which no row's task is.
    let items: Vec<String> = (0..30).map(|item| format!("q{item}")).collect();
    let listed = input("tasks.csv", format!("task_id\n{}\n", items.join("\n")));
    for (tasks, tuning) in [None, Some(&listed)]
        .into_iter()
        .flat_map(|tasks| tunings().map(|tuning| (tasks, tuning)))
    {
        let (held, streamed) = both(&files, tasks, None, &settings(0, 0, false, false), tuning);
        let report = held.clone().expect("repeats are decided");
        assert!(report[1].contains("30 pairs"), "{}", report[1]);
        assert_eq!(held, streamed);
    }
}

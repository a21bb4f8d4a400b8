//! The integration tests: the real `evogate` binary run on fixtures written inline or
//! shipped in `data/`, checking exit status, stdout and stderr together.

mod admit;
mod alpha;
mod answers;
mod audit;
mod benchmarks;
mod calibrate;
mod cluster;
mod demo;
mod docs;
mod faults;
mod grade;
mod hostile;
mod import;
mod import_suites;
mod layout;
mod ledger;
mod pairs_csv;
mod power;
mod readme;
mod repeat;
mod repeats_admit;
mod repeats_holdout;
mod report_columns;
mod score;
mod sequential;
mod sequential_ledger;
mod split;
mod split_from_scores;
mod suite_import;
mod summary;
mod terminal;
mod truth;
mod util;
mod verifier_classes;
mod wording;

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
mod report_columns;
mod score;
mod sequential;
mod split;
mod summary;
mod terminal;
mod truth;
mod util;

//! What `truth check` prints: every problem of a ground-truth file with its row, then
//! the count. Cell values reach the terminal only through `main`'s sanitiser.

use crate::verify::arxiv::truth::Problem;

/// The report of `truth check` on the file `source` of `rows` data rows.
pub(crate) fn check_text(source: &str, rows: usize, problems: &[Problem]) -> String {
    if problems.is_empty() {
        return format!(
            "`{source}`: {}, no problems\n",
            crate::base::numbers::count(rows as u64, "paper")
        );
    }
    let mut text = String::new();
    for problem in problems {
        text.push_str(&format!(
            "`{source}` row {}: {}\n",
            problem.line, problem.message
        ));
    }
    text.push_str(&format!(
        "{} problem{} in {}\n",
        problems.len(),
        if problems.len() == 1 { "" } else { "s" },
        crate::base::numbers::count(rows as u64, "row"),
    ));
    text
}

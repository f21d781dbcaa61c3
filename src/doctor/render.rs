//! The text form of doctor's [`Report`]: what a field engineer reads on a terminal. The `--json`
//! document is the same report, serialised; both go out through `Printer::render`.

use std::fmt;

use super::Report;

/// One line per check, the unit states, the findings (most important first), the next command.
impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(active) = &self.active {
            writeln!(f, "{:<11}{active}", "active")?;
        }
        for c in &self.checks {
            writeln!(f, "{:<11}{:<9}{}", c.check, c.status, c.summary)?;
        }
        if let Some(units) = &self.units {
            writeln!(f)?;
            for u in units {
                let state = if u.load == "not-found" {
                    "not installed".to_string()
                } else {
                    format!("{} ({})", u.active, u.sub)
                };
                let restarts = if u.restarts > 0 {
                    format!(", {} restarts", u.restarts)
                } else {
                    String::new()
                };
                writeln!(f, "  {:<28}{state}{restarts}", u.unit)?;
            }
        }
        if !self.findings.is_empty() {
            let n = self.findings.len();
            writeln!(f, "\n{n} finding{}:", if n == 1 { "" } else { "s" })?;
            for finding in &self.findings {
                let at = match (&finding.path, finding.line, finding.column) {
                    (Some(p), Some(l), Some(c)) => format!("{p}:{l}:{c}: "),
                    (Some(p), Some(l), None) => format!("{p}:{l}: "),
                    (Some(p), None, _) => format!("{p}: "),
                    (None, _, _) => String::new(),
                };
                writeln!(
                    f,
                    "  {} [{}] {at}{}",
                    finding.severity.as_str(),
                    finding.check,
                    finding.message
                )?;
                for d in &finding.details {
                    writeln!(f, "      {d}")?;
                }
                writeln!(f, "    fix: {}", finding.fix)?;
            }
        }
        writeln!(f, "\nnext: {}", self.next)
    }
}

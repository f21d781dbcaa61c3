//! `/root/config/bootstrap.json`: the OTA worker's config (docs/device-contract.md §3.4). osctl
//! only reads it (the skills metadata URL and the signing key); it survives a factory reset.

use serde_json::{Map, Value};

use crate::error::{Error, Result};
use crate::path::DevPath;
use crate::system::fs::RootFs;

#[derive(Clone, Debug)]
pub(crate) struct Bootstrap {
    pub fields: Map<String, Value>,
}

impl Bootstrap {
    /// `None` when the file does not exist.
    pub(crate) fn load(fs: &RootFs, path: &DevPath) -> Result<Option<Bootstrap>> {
        let Some(text) = fs.read_text(path)? else {
            return Ok(None);
        };
        let value: Value = serde_json::from_str(&text).map_err(|e| {
            Error::json(path, &e)
                .hint("nothing was written; bootstrap.json belongs to the OTA worker: fix it there")
        })?;
        let Value::Object(fields) = value else {
            return Err(Error::parse(
                path,
                Some(1),
                Some(1),
                "expected a JSON object",
            ));
        };
        super::keys::check(
            &path.to_string(),
            &text,
            &fields,
            super::keys::BOOTSTRAP,
            "in bootstrap.json (it belongs to the OTA worker: fix it there)",
        )?;
        Ok(Some(Bootstrap { fields }))
    }

    fn str(&self, key: &str) -> Option<&str> {
        self.fields
            .get(key)
            .and_then(Value::as_str)
            .map(str::trim)
            .filter(|s| !s.is_empty())
    }

    /// `metadata_url`: the OTA metadata that also lists the skills.
    pub(crate) fn metadata_url(&self) -> Option<&str> {
        self.str("metadata_url")
    }

    /// `signing_public_key`: base64 ed25519 key for signed metadata.
    pub(crate) fn signing_public_key(&self) -> Option<&str> {
        self.str("signing_public_key")
    }
}

//! Which runtime is active, and why (docs/device-contract.md §3.2):
//! `config.agent_runtime` > `/root/config/f_r_default_agent` > ROBOT.md `gateway.default` >
//! `openclaw`.

use super::config::DeviceConfig;
use super::robot::RobotProfile;
use crate::error::Result;
use crate::path::DevPath;
use crate::runtime::RuntimeId;

/// Where the answer came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Source {
    /// `config.json` `agent_runtime`.
    Config,
    /// `f_r_default_agent`, baked into the image.
    ImageDefault,
    /// ROBOT.md `gateway.default`.
    RobotProfile,
    /// Nothing set anywhere: openclaw.
    BuiltIn,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Resolution {
    pub runtime: RuntimeId,
    pub source: Source,
    /// The file (and field) that gave the answer, for humans.
    pub from: String,
    /// Values skipped on the way down the chain.
    pub warnings: Vec<String>,
}

/// The image default as read from `f_r_default_agent`: its path and first line.
pub(crate) struct ImageDefault<'a> {
    pub path: &'a DevPath,
    pub value: &'a str,
}

/// Walks the chain. An unknown runtime in config.json is an error (the device is misconfigured);
/// a bad value lower down is skipped with a warning, as the device skips it.
pub(crate) fn resolve(
    config: &DeviceConfig,
    image_default: Option<ImageDefault<'_>>,
    robot: &RobotProfile,
) -> Result<Resolution> {
    let mut warnings = Vec::new();
    if let Some(rt) = config.agent_runtime()? {
        return Ok(Resolution {
            runtime: rt,
            source: Source::Config,
            from: format!("{} agent_runtime", config.path),
            warnings,
        });
    }
    if let Some(d) = image_default {
        let first = d.value.lines().next().unwrap_or("").trim();
        if !first.is_empty() {
            match RuntimeId::parse(first) {
                Ok(rt) => {
                    return Ok(Resolution {
                        runtime: rt,
                        source: Source::ImageDefault,
                        from: d.path.to_string(),
                        warnings,
                    });
                }
                Err(e) => warnings.push(format!("{} ignored: {}", d.path, e.message)),
            }
        }
    }
    if let Some(default) = &robot.gateway_default {
        let path = robot
            .path
            .as_ref()
            .map(|p| p.to_string())
            .unwrap_or_default();
        if robot.gateway_flow_form {
            warnings.push(format!(
                "{path}:{}: gateway is in flow form; os-server reads only the block form (`gateway:` then `  default: {}` on its own line)",
                default.line, default.value
            ));
        }
        match RuntimeId::parse(&default.value) {
            Ok(rt) => {
                return Ok(Resolution {
                    runtime: rt,
                    source: Source::RobotProfile,
                    from: format!("{path}:{} gateway.default", default.line),
                    warnings,
                });
            }
            Err(e) => warnings.push(format!(
                "{path}:{} gateway.default ignored: {}",
                default.line, e.message
            )),
        }
    }
    Ok(Resolution {
        runtime: crate::runtime::BUILT_IN_DEFAULT,
        source: Source::BuiltIn,
        from: "built-in default".into(),
        warnings,
    })
}

#[cfg(test)]
#[allow(clippy::disallowed_methods, clippy::disallowed_types)] // tests set up files directly
mod tests {
    use super::*;
    use crate::device::robot;

    fn cfg(rt: &str) -> DeviceConfig {
        DeviceConfig::parse(
            DevPath::new("/root/config/config.json"),
            format!("{{\"agent_runtime\": \"{rt}\"}}"),
        )
        .unwrap()
    }

    #[test]
    fn each_step_of_the_chain() {
        let p = DevPath::new("/root/config/f_r_default_agent");
        let robot = robot::parse("---\ngateway:\n  default: codex\n---\n");
        let none = RobotProfile::default();
        let r = resolve(
            &cfg("Hermes"),
            Some(ImageDefault {
                path: &p,
                value: "picoclaw\n",
            }),
            &robot,
        )
        .unwrap();
        assert_eq!((r.runtime, r.source), (RuntimeId::Hermes, Source::Config));
        let r = resolve(
            &cfg(""),
            Some(ImageDefault {
                path: &p,
                value: " PicoClaw \n",
            }),
            &robot,
        )
        .unwrap();
        assert_eq!(
            (r.runtime, r.source),
            (RuntimeId::Picoclaw, Source::ImageDefault)
        );
        let r = resolve(
            &cfg(""),
            Some(ImageDefault {
                path: &p,
                value: "remote\n",
            }),
            &robot,
        )
        .unwrap();
        assert_eq!(
            (r.runtime, r.source),
            (RuntimeId::Codex, Source::RobotProfile)
        );
        assert_eq!(r.warnings.len(), 1);
        let r = resolve(&cfg(""), None, &none).unwrap();
        assert_eq!(
            (r.runtime, r.source),
            (RuntimeId::Openclaw, Source::BuiltIn)
        );
        assert!(resolve(&cfg("nanoclaw"), None, &none).is_err());
    }
}

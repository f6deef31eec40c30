//! `sinew pose`: joint matrices as JSON (see DESIGN: the shape of the reference poses).

use super::Args;
use sinew::report::{CpuPose, NodeSelection, PoseRequest, pose_report};
use sinew::{GpuContext, GpuPose};

pub fn run(args: &[String]) -> Result<(), String> {
    let args = Args::parse(
        args,
        &["--anim", "--times", "--backend", "--nodes"],
        &["--rest"],
    )?;
    let file = args.file()?;
    let clip = match (
        args.has("--rest"),
        args.value("--anim"),
        args.value("--times"),
    ) {
        (true, None, None) => None,
        (false, Some(anim), Some(times)) => {
            let anim: usize = anim
                .parse()
                .map_err(|_| format!("--anim {anim:?} is not an index"))?;
            let times = times
                .split(',')
                .map(|t| match t.trim().parse::<f32>() {
                    Ok(v) if v.is_finite() => Ok(v),
                    _ => Err(format!("--times: {t:?} is not a finite number")),
                })
                .collect::<Result<Vec<f32>, String>>()?;
            Some((anim, times))
        }
        (true, _, _) => return Err("--rest cannot be combined with --anim/--times".into()),
        _ => return Err("give either --anim N --times T1,T2,... or --rest".into()),
    };
    let asset = sinew::import_file(file).map_err(|e| e.to_string())?;
    let nodes = match args.value("--nodes") {
        None if asset.skins.is_empty() => NodeSelection::Animated,
        None | Some("none") => NodeSelection::None,
        Some("animated") => NodeSelection::Animated,
        Some("all") => NodeSelection::All,
        Some(other) => return Err(format!("--nodes {other:?}: expected none, animated or all")),
    };
    let request = PoseRequest { clip, nodes };
    let report = match args.value("--backend").unwrap_or("cpu") {
        "cpu" => pose_report(&asset, &request, &mut CpuPose),
        "gpu" => {
            let context = GpuContext::new_headless().map_err(|e| e.to_string())?;
            pose_report(&asset, &request, &mut GpuPose::new(context))
        }
        other => return Err(format!("--backend {other:?}: expected cpu or gpu")),
    }
    .map_err(|e| e.to_string())?;
    let json = serde_json::to_string(&report).map_err(|e| e.to_string())?;
    super::print(&json)
}

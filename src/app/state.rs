//! What persists between sessions, through eframe's storage: the settings and the persisted
//! panels, apart from the runtime handles.

use serde::{Deserialize, Serialize};

use super::playground::Playground;

/// The main views.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum Tab {
    /// The selected experiment: charts, verdicts, lane grid, source.
    #[default]
    Experiment,
    /// Several documents overlaid.
    Compare,
    /// The WGSL playground.
    Playground,
}

/// What persists between sessions (saved under [`eframe::APP_KEY`]).
#[derive(Serialize, Deserialize)]
#[serde(default)]
pub struct State {
    /// The adapter's index in the list (as `--adapter N`); `None` for divlab's default.
    pub adapter: Option<usize>,
    /// Quick runs: fewer repetitions, smaller sweeps.
    pub quick: bool,
    /// Timed repetitions; 0 for the default.
    pub reps: usize,
    /// The view shown.
    pub tab: Tab,
    /// The selected experiment id, in the Experiment and the Compare view alike.
    pub selected: Option<String>,
    /// The last file opened or saved; dialogs start there.
    pub path: String,
    /// The playground: its source and run settings persist.
    // A key of its own: states saved before the playground was a panel hold its source under
    // `playground`, and are read without it rather than not at all.
    #[serde(rename = "playground_panel")]
    pub playground: Playground,
}

impl Default for State {
    fn default() -> Self {
        Self {
            adapter: None,
            quick: true,
            reps: 0,
            tab: Tab::Experiment,
            selected: None,
            path: String::new(),
            playground: Playground::default(),
        }
    }
}

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_playground_persists_its_source_and_settings_but_not_its_runs() {
        let mut state = State::default();
        state.playground.source = "fn f() {}".to_owned();
        state.playground.settings.reps = 3;
        let text = serde_json::to_string(&state).unwrap();
        let back: State = serde_json::from_str(&text).unwrap();
        assert_eq!(back.playground.source, "fn f() {}");
        assert_eq!(back.playground.settings.reps, 3);
        assert!(back.playground.last.is_none());
    }

    #[test]
    fn an_edited_kernel_stays_marked_across_a_restart_and_an_older_state_is_not_marked() {
        let mut state = State::default();
        let path = std::path::Path::new("/k/blur.wgsl");
        state.playground.open_kernel(path, "fn f() {}\n".to_owned());
        assert!(!state.playground.modified());
        state.playground.source = "fn f() { }\n".to_owned();
        let text = serde_json::to_string(&state).unwrap();
        let back: State = serde_json::from_str(&text).unwrap();
        assert!(back.playground.modified());
        // Saved before the file's text was kept: nothing to tell an edit by.
        let mut value: serde_json::Value = serde_json::from_str(&text).unwrap();
        value["playground_panel"]
            .as_object_mut()
            .unwrap()
            .remove("saved");
        let older: State = serde_json::from_value(value).unwrap();
        assert_eq!(older.playground.path.as_deref(), Some(path));
        assert!(!older.playground.modified());
    }

    /// A kernel opened for the first time runs as its header says; opened again, as it was
    /// last set here.
    #[test]
    fn a_kernel_opened_first_takes_its_headers_run_and_then_its_own_settings() {
        let mut state = State::default();
        let threshold = include_str!("../../assets/kernels/threshold.wgsl");
        let path = std::path::Path::new("/k/threshold.wgsl");
        let told = state.playground.open_kernel(path, threshold.to_owned());
        assert_eq!(state.playground.settings.workgroups, [8, 8, 1]);
        assert_eq!(state.playground.settings.textures, "texture src=gradient");
        let told = told.expect("the user is told where the settings came from");
        assert!(told.contains("--dispatch 8,8") && told.contains("--save dst=threshold.png"));
        state.playground.settings.workgroups = [2, 2, 1];
        let other = std::path::Path::new("/k/other.wgsl");
        assert_eq!(
            state
                .playground
                .open_kernel(other, "fn f() {}\n".to_owned()),
            None
        );
        assert_eq!(state.playground.settings.workgroups, [1, 1, 1]);
        assert_eq!(
            state.playground.open_kernel(path, threshold.to_owned()),
            None
        );
        assert_eq!(state.playground.settings.workgroups, [2, 2, 1]);
    }

    #[test]
    fn a_state_saved_before_the_playground_was_a_panel_keeps_its_settings() {
        let old = r#"{"adapter": 1, "quick": false, "tab": "Compare",
            "playground": "fn old() {}", "playground_settings": {"reps": 3}}"#;
        let state: State = serde_json::from_str(old).unwrap();
        assert_eq!(state.adapter, Some(1));
        assert!(!state.quick);
        assert_eq!(state.tab, Tab::Compare);
        assert_eq!(state.playground.source, super::super::playground::EXAMPLE);
    }
}

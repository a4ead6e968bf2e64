//! The lane map: the lanes recorded at one line (`--lanes`) as a lane grid, one row per subgroup
//! execution labelled by workgroup, subgroup and trip.

use std::collections::BTreeMap;

use eframe::egui;

use crate::app::lane_grid::{LaneCache, LaneGrid};
use crate::profile::report::{LaneCapture, LaneExecution, Profile};
use crate::report::LaneRecord;

/// The lanes recorded at one line (`--lanes`), as a lane grid: one row per subgroup execution,
/// one colour per distinct ballot, grey for lanes not there.
pub struct LaneMap {
    /// The line.
    pub line: u32,
    /// Executions at it (more than the rows when the records ran out).
    pub executions: u64,
    records: Vec<LaneRecord>,
    /// Each row's workgroup, subgroup and (where its subgroup ran the line more than once)
    /// trip, in row order.
    labels: Vec<String>,
    /// What the map says where rows contradict the linear mapping their lanes are placed by.
    off_linear: Option<String>,
    cache: LaneCache,
}

impl LaneMap {
    /// The map of a profile's lane capture, if it has one. Lane ids assume the linear mapping
    /// (subgroup_invocation_id = local_invocation_index mod size) every device seen so far uses.
    pub fn of(profile: &Profile) -> Option<Self> {
        let capture = profile.lanes.as_ref()?;
        let size = profile.subgroup_size.unwrap_or(32).max(1);
        let [wx, wy, wz] = profile.kernel.workgroup_size;
        let [dx, dy, _] = profile.kernel.dispatch;
        let per_workgroup = (wx * wy * wz).div_ceil(size);
        let records: Vec<LaneRecord> = capture
            .records
            .iter()
            .map(|e| {
                let base = e.first_local_index.saturating_sub(e.lowest_lane());
                let [x, y, z] = e.workgroup;
                let workgroup = x + dx * (y + dy * z);
                let active = |i: u32| e.ballot[(i / 32) as usize % 4] & (1 << (i % 32)) != 0;
                LaneRecord {
                    point: 0,
                    subgroup: workgroup * per_workgroup + base / size,
                    local_index: (0..size).map(|i| base + i).collect(),
                    ballot: (0..size)
                        .map(|i| if active(i) { e.ballot } else { [0; 4] })
                        .collect(),
                    // A profile records no value per lane.
                    value: Vec::new(),
                }
            })
            .collect();
        let mut labels = lane_labels(capture, &records, profile.kernel.dispatch);
        // The grid shows rows by subgroup (a stable sort): the labels follow the same order.
        let mut order: Vec<usize> = (0..records.len()).collect();
        order.sort_by_key(|&i| records[i].subgroup);
        let records: Vec<_> = order.iter().map(|&i| records[i].clone()).collect();
        labels = order.iter().map(|&i| labels[i].clone()).collect();
        let cache = LaneCache::new(&records);
        Some(Self {
            line: capture.line,
            executions: capture.executions,
            records,
            labels,
            off_linear: off_linear_warning(&capture.records, size),
            cache,
        })
    }

    /// The width at which the grid shows every row's label and cells large enough to carry it
    /// (as [`LaneGrid`] sizes them: 7 points a label character, 8 points or more a cell), with
    /// room for the scroll bar.
    pub fn wanted_width(&self) -> f32 {
        let chars = self
            .labels
            .iter()
            .map(|l| l.chars().count())
            .max()
            .unwrap_or(4);
        let lanes = self.records.first().map_or(8, |r| r.local_index.len());
        8.0 + 7.0 * chars as f32 + 10.0 * lanes as f32 + 24.0
    }

    /// What the heading says: the line, its executions, and how many of them are shown.
    fn heading(&self) -> String {
        let kept = self.records.len() as u64;
        format!(
            "Lanes at line {}: {} subgroup execution{}{}",
            self.line,
            self.executions,
            if self.executions == 1 { "" } else { "s" },
            if kept < self.executions {
                format!(" (the first {kept} shown)")
            } else {
                String::new()
            }
        )
    }

    /// The heading and the grid.
    pub fn ui(&mut self, ui: &mut egui::Ui) {
        ui.strong(self.heading());
        ui.weak(
            "One row per subgroup execution, labelled by workgroup, subgroup within it and, \
             where a subgroup ran the line again (a loop), its trip; one colour per set of \
             lanes that ran the line together; grey: lanes not there. Hover a lane for its ids.",
        );
        if let Some(warning) = &self.off_linear {
            ui.colored_label(ui.visuals().warn_fg_color, warning);
        }
        // A row may repeat a subgroup (a loop's trips): the grid's sort is stable, so they
        // stay in the order they ran.
        let records = &self.records;
        let cache = &mut self.cache;
        egui::ScrollArea::vertical()
            .id_salt("lane_map")
            .max_height(ui.available_height().max(200.0))
            .show(ui, |ui| {
                LaneGrid::cached(records, 0, cache)
                    .max_cell(14.0)
                    .row_labels(&self.labels)
                    .show(ui);
            });
    }
}

/// What a map says where some of `records` contradict the linear lane mapping it places lanes
/// by: how many, and that their lanes' places are a guess. `None` where none does.
pub fn off_linear_warning(records: &[LaneExecution], subgroup_size: u32) -> Option<String> {
    let off = (records.iter())
        .filter(|r| r.contradicts_linear_mapping(subgroup_size))
        .count();
    (off > 0).then(|| {
        format!(
            "{off} of {} recorded executions contradict the linear lane mapping (lane = \
             local index mod subgroup size) by which this map places the lanes a record does \
             not place itself: on this device those places are a guess; the ballots are as \
             recorded.",
            records.len()
        )
    })
}

/// A label per record: `wg X[,Y[,Z]] sg I` (as many workgroup ids as the dispatch has
/// dimensions), and `trip T` where its subgroup ran the line more than once.
fn lane_labels(capture: &LaneCapture, records: &[LaneRecord], dispatch: [u32; 3]) -> Vec<String> {
    let mut runs: BTreeMap<u32, u32> = BTreeMap::new();
    for record in records {
        *runs.entry(record.subgroup).or_insert(0) += 1;
    }
    let dimensions = if dispatch[2] > 1 {
        3
    } else if dispatch[1] > 1 {
        2
    } else {
        1
    };
    let mut trips: BTreeMap<u32, u32> = BTreeMap::new();
    capture
        .records
        .iter()
        .zip(records)
        .map(|(execution, record)| {
            let ids: Vec<String> = execution.workgroup[..dimensions]
                .iter()
                .map(u32::to_string)
                .collect();
            let size = record.local_index.len().max(1) as u32;
            let index = record.local_index.first().copied().unwrap_or(0) / size;
            let mut label = format!("wg {} sg {index}", ids.join(","));
            if runs[&record.subgroup] > 1 {
                let trip = trips.entry(record.subgroup).or_insert(0);
                *trip += 1;
                label.push_str(&format!(" trip {trip}"));
            }
            label
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::profile_view::fixture;
    use crate::profile::report::LaneExecution;

    fn execution(workgroup: [u32; 3], first: u32, ballot: u32) -> LaneExecution {
        LaneExecution {
            ballot: [ballot, 0, 0, 0],
            workgroup,
            first_local_index: first,
            invocations: None,
            invocations_complete: None,
        }
    }

    /// The fixture's two workgroups of 16 in subgroups of 8, four executions recorded of six.
    fn captured() -> Profile {
        let mut profile = fixture::profile();
        profile.lanes = Some(LaneCapture {
            line: 8,
            executions: 6,
            records: vec![
                execution([1, 0, 0], 0, 0xff),
                execution([0, 0, 0], 9, 0xfe),
                execution([0, 0, 0], 10, 0xfc),
                execution([0, 0, 0], 0, 0x0f),
            ],
        });
        profile
    }

    #[test]
    fn a_profile_without_a_capture_has_no_lane_map() {
        assert!(LaneMap::of(&fixture::profile()).is_none());
    }

    #[test]
    fn rows_go_by_subgroup_labelled_with_their_workgroup_subgroup_and_trip() {
        let map = LaneMap::of(&captured()).expect("a lane map");
        assert_eq!((map.line, map.executions), (8, 6));
        assert_eq!(
            map.labels,
            [
                "wg 0 sg 0",
                "wg 0 sg 1 trip 1",
                "wg 0 sg 1 trip 2",
                "wg 1 sg 0"
            ]
        );
        let subgroups: Vec<u32> = map.records.iter().map(|r| r.subgroup).collect();
        assert_eq!(subgroups, [0, 1, 1, 2]);
        // The second row: lane 0 of local index 8 sat out, the other seven ran.
        let row = &map.records[1];
        assert_eq!(row.local_index, (8..16).collect::<Vec<_>>());
        assert_eq!(row.ballot[0], [0; 4]);
        assert!(row.ballot[1..].iter().all(|b| *b == [0xfe, 0, 0, 0]));
        assert!(row.value.is_empty());
        assert_eq!(
            map.heading(),
            "Lanes at line 8: 6 subgroup executions (the first 4 shown)"
        );
    }

    #[test]
    fn a_label_names_as_many_workgroup_ids_as_the_dispatch_has_dimensions() {
        let mut profile = captured();
        profile.kernel.dispatch = [2, 3, 1];
        let capture = profile.lanes.as_mut().expect("a capture");
        capture.records = vec![execution([1, 2, 0], 0, 0xff)];
        capture.executions = 1;
        let map = LaneMap::of(&profile).expect("a lane map");
        assert_eq!(map.labels, ["wg 1,2 sg 0"]);
        // Workgroup (1, 2) is number 1 + 2 × 2 = 5 in x-major order, two subgroups each.
        assert_eq!(map.records[0].subgroup, 10);
        assert_eq!(map.heading(), "Lanes at line 8: 1 subgroup execution");
    }

    #[test]
    fn a_record_the_linear_mapping_cannot_give_is_counted_and_said() {
        // Subgroups of 8: lane 1 at local index 9 is subgroup 1's; at local index 5 or 0 no
        // linear mapping puts it.
        assert!(!execution([0, 0, 0], 9, 0xfe).contradicts_linear_mapping(8));
        assert!(execution([0, 0, 0], 5, 0xfe).contradicts_linear_mapping(8));
        assert!(execution([0, 0, 0], 0, 0xfe).contradicts_linear_mapping(8));
        // A 2-D record whose lanes failed the shuffle check is not contiguous in local index.
        let unplaced = LaneExecution {
            invocations: Some(vec![crate::profile::report::LaneInvocation {
                local_id: [5, 0, 0],
                lane: None,
            }]),
            invocations_complete: Some(true),
            ..execution([0, 0, 0], 5, 0x02)
        };
        assert_eq!(unplaced.subgroup_base(), None);
        assert!(unplaced.contradicts_linear_mapping(8));
        // One whose list was cut short (lanes far past the first) says nothing either way.
        let cut_short = LaneExecution {
            invocations_complete: Some(false),
            invocations: Some(vec![crate::profile::report::LaneInvocation {
                local_id: [5, 0, 0],
                lane: Some(1),
            }]),
            ..unplaced.clone()
        };
        assert_eq!(cut_short.subgroup_base(), None);
        assert!(!cut_short.contradicts_linear_mapping(8));
        let placed = LaneExecution {
            invocations: Some(vec![crate::profile::report::LaneInvocation {
                local_id: [5, 0, 0],
                lane: Some(1),
            }]),
            ..unplaced.clone()
        };
        assert_eq!(placed.subgroup_base(), Some(4));
        assert!(placed.contradicts_linear_mapping(8));

        assert_eq!(LaneMap::of(&captured()).expect("a map").off_linear, None);
        let mut profile = captured();
        let capture = profile.lanes.as_mut().expect("a capture");
        capture.records[1].first_local_index = 5;
        let map = LaneMap::of(&profile).expect("a lane map");
        let warning = map.off_linear.expect("a warning");
        assert!(
            warning.starts_with("1 of 4 recorded executions"),
            "{warning}"
        );
    }
}

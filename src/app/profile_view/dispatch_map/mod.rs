//! The dispatch map: the lanes recorded at one line (`--lanes`), drawn over the whole dispatch,
//! one cell per invocation laid out by `global_invocation_id` (x across, y down, one z slice at
//! a time). A cell is green where the invocation ran the line, red where its subgroup ran the
//! line without it, amber between (a loop's trips it sat out), and grey where its subgroup never
//! reached the line. Thin outlines follow each subgroup's lanes as the records give them, so the
//! subgroups' shape across a workgroup tile shows: an 8×8 tile cut into 8×4 strips by 32-lane
//! subgroups, into rows by 8-lane ones.
//!
//! Where a lane sat in its subgroup comes from the records: in a 1-D workgroup lane `i` of a
//! record is local index `first_local_index − lowest + i` (every device seen so far lays its
//! lanes out so); in a 2-D or 3-D workgroup each active lane's invocation is recorded, and the
//! idle lanes are placed the same way only where every active lane checked its place by a
//! shuffle (otherwise only the active ones are known).
//!
//! The cells are one texture per slice (one texel per invocation, or a few per invocation with
//! the outlines baked in), so a frame draws one rectangle: a 1024 × 1024 dispatch stays smooth.

mod paint;

use std::collections::HashMap;

use eframe::egui;

use crate::profile::report::{LaneExecution, Profile};
pub use paint::{NOT_REACHED, OUTLINE};

/// No subgroup: the invocation's subgroup never reached the line.
const NONE: u32 = u32::MAX;

/// What a slice's texture was made for: the slice, the texture under it, texels per cell.
type TextureKey = (u32, Option<usize>, u32);

/// The dispatch a map is laid over.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shape {
    /// `@workgroup_size`.
    pub workgroup_size: [u32; 3],
    /// Workgroups in x, y, z.
    pub dispatch: [u32; 3],
    /// Lanes per subgroup.
    pub subgroup_size: u32,
}

/// One subgroup, as the records give it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Subgroup {
    /// Its `workgroup_id`.
    pub workgroup: [u32; 3],
    /// Its lanes' local indices start here (lane `i` is this + `i`), where that is known.
    pub base: Option<u32>,
    /// Its executions of the line.
    pub executions: u32,
    /// The ballot of its first execution.
    pub first_ballot: [u32; 4],
}

/// One invocation of the dispatch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cell {
    /// Index into [`DispatchMap::subgroups`], or none where its subgroup never reached the line.
    subgroup: u32,
    /// Executions of its subgroup at the line in which this invocation was active.
    ran: u32,
}

/// What a cell shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CellState {
    /// It ran the line every time its subgroup did.
    Ran,
    /// It ran the line in some of its subgroup's executions (a loop's trips).
    Sometimes,
    /// Its subgroup ran the line without it.
    Idle,
    /// Its subgroup never reached the line (or its record was not kept).
    NotReached,
}

/// How a line of 1-D workgroups is drawn: a row each, down a column, and in further columns
/// side by side where one column would be much taller than wide (16,384 workgroups of 64 make
/// 16 columns of 1,024 rather than a strip 64 cells wide).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rows {
    /// Workgroups dispatched.
    pub workgroups: u32,
    /// Invocations per workgroup: the cells of a row.
    pub width: u32,
    /// Columns side by side.
    pub columns: u32,
    /// Rows per column, workgroup after workgroup down it (the last column may have fewer).
    pub per_column: u32,
}

impl Rows {
    /// `workgroups` of `width`, in as many columns as make the map about square.
    pub fn new(workgroups: u32, width: u32) -> Self {
        let square = (f64::from(workgroups) / f64::from(width.max(1)))
            .sqrt()
            .round();
        let columns = (square as u32).clamp(1, workgroups.max(1));
        let per_column = workgroups.div_ceil(columns);
        Self {
            workgroups,
            width,
            columns: workgroups.div_ceil(per_column.max(1)),
            per_column,
        }
    }

    /// The cell of local index `local` of `workgroup`.
    fn place(&self, workgroup: u32, local: u32) -> [u32; 3] {
        let column = workgroup / self.per_column;
        [column * self.width + local, workgroup % self.per_column, 0]
    }

    /// The workgroup and local index at cell (`x`, `y`); `None` past the last workgroup.
    fn invocation(&self, x: u32, y: u32) -> Option<(u32, u32)> {
        let workgroup = x / self.width * self.per_column + y;
        (workgroup < self.workgroups && y < self.per_column).then_some((workgroup, x % self.width))
    }
}

/// The whole dispatch at one line.
pub struct DispatchMap {
    /// The line.
    pub line: u32,
    /// Cells in x, y, z: the workgroup size times the dispatch, or, with [`Self::rows`], the
    /// workgroup size times its columns by its rows per column.
    pub size: [u32; 3],
    /// A line of 1-D workgroups, drawn one row per workgroup (x: the local index) rather than
    /// as a strip one cell high, and folded into columns where it is long.
    pub rows: Option<Rows>,
    workgroup_size: [u32; 3],
    subgroup_size: u32,
    cells: Vec<Cell>,
    subgroups: Vec<Subgroup>,
    /// Executions at the line were more than the records kept: some cells show as not reached
    /// though their subgroup did reach it.
    pub truncated: bool,
    /// What the map says where records contradict the linear lane mapping that places their
    /// lanes.
    off_linear: Option<String>,
    /// The slice shown.
    pub z: u32,
    /// The texture to draw under the cells, by its index in the pictures, if any.
    pub overlay: Option<usize>,
    texture: Option<(TextureKey, egui::TextureHandle)>,
}

impl DispatchMap {
    /// The map of a profile's lane capture, if it has one and a dispatch to lay it over.
    pub fn of(profile: &Profile) -> Option<Self> {
        let capture = profile.lanes.as_ref()?;
        let shape = Shape {
            workgroup_size: profile.kernel.workgroup_size,
            dispatch: profile.kernel.dispatch,
            subgroup_size: profile.subgroup_size.unwrap_or(32).max(1),
        };
        Self::from_records(capture.line, shape, &capture.records, capture.executions)
    }

    /// The map of `records` of `line` (of `executions` in all) over a dispatch of `shape`;
    /// `None` for an empty dispatch or one over 2^26 invocations.
    pub fn from_records(
        line: u32,
        shape: Shape,
        records: &[LaneExecution],
        executions: u64,
    ) -> Option<Self> {
        let Shape {
            workgroup_size,
            dispatch,
            subgroup_size,
        } = shape;
        let line_of_workgroups =
            workgroup_size[1..] == [1, 1] && dispatch[1..] == [1, 1] && dispatch[0] > 1;
        let rows = line_of_workgroups.then(|| Rows::new(dispatch[0], workgroup_size[0]));
        let size: [u32; 3] = match rows {
            Some(r) => [r.width * r.columns, r.per_column, 1],
            None => std::array::from_fn(|i| workgroup_size[i] * dispatch[i]),
        };
        let invocations = size.iter().map(|&n| n as usize).product::<usize>();
        if invocations == 0 || invocations > 1 << 26 {
            return None;
        }
        let mut map = Self {
            line,
            size,
            rows,
            workgroup_size,
            subgroup_size,
            cells: vec![
                Cell {
                    subgroup: NONE,
                    ran: 0
                };
                invocations
            ],
            subgroups: Vec::new(),
            truncated: executions > records.len() as u64,
            off_linear: super::lane_map::off_linear_warning(records, subgroup_size),
            z: 0,
            overlay: None,
            texture: None,
        };
        let mut index: HashMap<([u32; 3], u32), u32> = HashMap::new();
        for record in records {
            map.add(record, &mut index);
        }
        Some(map)
    }

    /// Places one record's lanes: the active ones ran, the others of its subgroup (where
    /// known) sat idle.
    fn add(&mut self, record: &LaneExecution, index: &mut HashMap<([u32; 3], u32), u32>) {
        let active =
            |lane: u32| lane < 128 && record.ballot[(lane / 32) as usize] >> (lane % 32) & 1 == 1;
        let per_workgroup: u32 = self.workgroup_size.iter().product();
        // The active lanes' local indices, and the subgroup's first local index where known.
        let base = record.subgroup_base();
        let ran: Vec<u32> = match &record.invocations {
            None => (0..self.subgroup_size.min(128))
                .filter(|&l| active(l))
                .filter_map(|l| base.map(|b| b + l))
                .collect(),
            Some(lanes) => {
                let [wx, wy, _] = self.workgroup_size;
                lanes
                    .iter()
                    .map(|l| l.local_id[0] + wx * (l.local_id[1] + wy * l.local_id[2]))
                    .collect()
            }
        };
        let key = (record.workgroup, base.unwrap_or(record.first_local_index));
        let id = *index.entry(key).or_insert_with(|| {
            self.subgroups.push(Subgroup {
                workgroup: record.workgroup,
                base,
                executions: 0,
                first_ballot: record.ballot,
            });
            (self.subgroups.len() - 1) as u32
        });
        self.subgroups[id as usize].executions += 1;
        let members: Vec<u32> = match base {
            Some(b) => (b..b + self.subgroup_size)
                .filter(|&i| i < per_workgroup)
                .collect(),
            None => ran.clone(),
        };
        for local in members {
            if let Some(cell) = self.cell_at(record.workgroup, local) {
                cell.subgroup = id;
            }
        }
        for local in ran {
            if let Some(cell) = self.cell_at(record.workgroup, local) {
                cell.subgroup = id;
                cell.ran += 1;
            }
        }
    }

    fn cell_at(&mut self, workgroup: [u32; 3], local: u32) -> Option<&mut Cell> {
        let [wx, wy, wz] = self.workgroup_size;
        if local >= wx * wy * wz {
            return None;
        }
        let local_id = [local % wx, local / wx % wy, local / (wx * wy)];
        let cell = match self.rows {
            Some(rows) => rows.place(workgroup[0], local),
            None => std::array::from_fn(|i| workgroup[i] * self.workgroup_size[i] + local_id[i]),
        };
        let i = self.index(cell)?;
        self.cells.get_mut(i)
    }

    fn index(&self, [x, y, z]: [u32; 3]) -> Option<usize> {
        let [sx, sy, sz] = self.size;
        (x < sx && y < sy && z < sz)
            .then(|| x as usize + sx as usize * (y as usize + sy as usize * z as usize))
    }

    /// The subgroups the records name, in the order they first ran the line.
    pub fn subgroups(&self) -> &[Subgroup] {
        &self.subgroups
    }

    /// The global id of the invocation drawn at cell `at` (in x, y, z of [`Self::size`]);
    /// `None` outside the map, and where folded [`Self::rows`] leave the cell empty.
    pub fn global_id(&self, at: [u32; 3]) -> Option<[u32; 3]> {
        self.index(at)?;
        match self.rows {
            Some(rows) => {
                let (workgroup, local) = rows.invocation(at[0], at[1])?;
                Some([workgroup * rows.width + local, 0, 0])
            }
            None => Some(at),
        }
    }

    /// The cell at `at` (in x, y, z of [`Self::size`]): what it shows, and its subgroup's index
    /// into [`Self::subgroups`] (none where its subgroup never reached the line); `None` where
    /// no invocation is drawn.
    pub fn cell(&self, at: [u32; 3]) -> Option<(CellState, Option<usize>)> {
        self.global_id(at)?;
        let cell = self.cells[self.index(at)?];
        if cell.subgroup == NONE {
            return Some((CellState::NotReached, None));
        }
        let executions = self.subgroups[cell.subgroup as usize].executions;
        let state = match cell.ran {
            0 => CellState::Idle,
            n if n >= executions => CellState::Ran,
            _ => CellState::Sometimes,
        };
        Some((state, Some(cell.subgroup as usize)))
    }

    /// What hovering the invocation at `at` says: its ids, its subgroup and the ballot.
    pub fn describe(&self, cell: [u32; 3]) -> String {
        let [wx, wy, wz] = self.workgroup_size;
        let Some(at) = self.global_id(cell) else {
            return "no invocation: past the dispatch's last workgroup".to_owned();
        };
        let workgroup = [at[0] / wx, at[1] / wy, at[2] / wz];
        let local = [at[0] % wx, at[1] % wy, at[2] % wz];
        let local_index = local[0] + wx * (local[1] + wy * local[2]);
        let mut text = format!(
            "global_invocation_id ({}, {}, {})\nworkgroup_id ({}, {}, {}) · local_invocation_id \
             ({}, {}, {}) · local index {local_index}",
            at[0],
            at[1],
            at[2],
            workgroup[0],
            workgroup[1],
            workgroup[2],
            local[0],
            local[1],
            local[2]
        );
        let Some(i) = self.index(cell) else {
            return text;
        };
        let cell = self.cells[i];
        if cell.subgroup == NONE {
            text.push_str(if self.truncated {
                "\nits subgroup never reached the line, or ran it after the records ran out"
            } else {
                "\nits subgroup never reached the line"
            });
            return text;
        }
        let s = &self.subgroups[cell.subgroup as usize];
        let lanes = match s.base {
            Some(b) => format!(
                "subgroup {} of its workgroup (local indices {b}..{}), lane {}",
                b / self.subgroup_size,
                b + self.subgroup_size - 1,
                local_index.wrapping_sub(b)
            ),
            None => "a subgroup whose idle lanes are not known".to_owned(),
        };
        let ballot = s.first_ballot;
        text.push_str(&format!(
            "\n{lanes}\nran the line in {} of its subgroup's {} executions\nfirst ballot \
             {:08x} {:08x} {:08x} {:08x} (high word first)",
            cell.ran, s.executions, ballot[3], ballot[2], ballot[1], ballot[0]
        ));
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    pub(super) fn shape(workgroup_size: [u32; 3], dispatch: [u32; 3], subgroup_size: u32) -> Shape {
        Shape {
            workgroup_size,
            dispatch,
            subgroup_size,
        }
    }

    pub(super) fn record(workgroup: u32, first: u32, ballot: u32) -> LaneExecution {
        LaneExecution {
            ballot: [ballot, 0, 0, 0],
            workgroup: [workgroup, 0, 0],
            first_local_index: first,
            invocations: None,
            invocations_complete: None,
        }
    }

    #[test]
    fn records_the_linear_mapping_cannot_give_are_counted() {
        // Lane 2 at local index 10 is subgroup 1's; at local index 7 no linear mapping puts it.
        let records = [record(0, 10, 0x04), record(1, 7, 0x04)];
        let map = DispatchMap::from_records(3, shape([16, 1, 1], [2, 1, 1], 8), &records, 2)
            .expect("a map");
        let warning = map.off_linear.expect("a warning");
        assert!(
            warning.starts_with("1 of 2 recorded executions"),
            "{warning}"
        );
    }

    /// Two workgroups of 16 in a line, subgroups of 8: a row per workgroup. Workgroup 0's first
    /// subgroup ran the line with lanes 2..8 twice and lane 1 once; its second never reached it;
    /// workgroup 1's first ran it with every lane.
    #[test]
    fn a_line_of_1d_workgroups_is_a_row_each_with_ran_idle_and_unreached_lanes() {
        let shape = shape([16, 1, 1], [2, 1, 1], 8);
        let records = [record(0, 1, 0xfe), record(0, 2, 0xfc), record(1, 0, 0xff)];
        let map = DispatchMap::from_records(3, shape, &records, 3).unwrap();
        assert!(map.rows.is_some());
        assert_eq!(map.size, [16, 2, 1]);
        let state = |x, y| map.cell([x, y, 0]).unwrap().0;
        assert_eq!(state(0, 0), CellState::Idle);
        assert_eq!(state(1, 0), CellState::Sometimes);
        assert_eq!(state(2, 0), CellState::Ran);
        assert_eq!(state(8, 0), CellState::NotReached);
        assert_eq!(state(7, 1), CellState::Ran);
        assert_eq!(state(8, 1), CellState::NotReached);
        assert_eq!(map.subgroups().len(), 2);
        assert!(
            map.describe([9, 1, 0])
                .starts_with("global_invocation_id (25, 0, 0)")
        );
        // The outline between lane 7 and lane 8 of workgroup 1: another subgroup (none).
        let image = map.image(0, None);
        let k = map.texels_per_cell() as usize;
        let px = |x: usize, y: usize| image.pixels[y * image.size[0] + x];
        assert_eq!(px(7 * k + k - 1, k + k / 2), OUTLINE);
        assert_ne!(px(6 * k + k - 1, k + k / 2), OUTLINE);
    }

    /// Nine workgroups of 4 in a line fold into two columns of five rows, down then across:
    /// workgroup 7 is the third row of the second column, and the cell after the last
    /// workgroup holds no invocation.
    #[test]
    fn a_long_line_of_workgroups_folds_into_columns() {
        let shape = shape([4, 1, 1], [9, 1, 1], 4);
        let map = DispatchMap::from_records(3, shape, &[record(7, 0, 0xf)], 1).unwrap();
        let rows = map.rows.expect("a line of workgroups");
        assert_eq!((rows.columns, rows.per_column), (2, 5));
        assert_eq!(map.size, [8, 5, 1]);
        assert_eq!(
            map.global_id([7, 2, 0]),
            Some([31, 0, 0]),
            "workgroup 7, lane 3"
        );
        assert_eq!(map.cell([7, 2, 0]).unwrap().0, CellState::Ran);
        assert_eq!(map.cell([3, 2, 0]).unwrap().0, CellState::NotReached);
        assert!(
            map.describe([5, 2, 0])
                .starts_with("global_invocation_id (29, 0, 0)")
        );
        assert_eq!(map.global_id([4, 4, 0]), None, "workgroup 9 of 9");
        assert_eq!(map.cell([4, 4, 0]), None);
        assert!(
            map.describe([4, 4, 0])
                .contains("past the dispatch's last workgroup")
        );
        let image = map.image(0, None);
        let k = map.texels_per_cell() as usize;
        assert_eq!(
            image.pixels[(4 * k) * image.size[0] + 4 * k],
            egui::Color32::TRANSPARENT
        );
        // A short line stays one column.
        assert_eq!(Rows::new(16, 64).columns, 1);
        assert_eq!(Rows::new(16_384, 64).columns, 16);
    }

    /// A 4×4×2 workgroup, two of them in z, subgroups of 16: each record's invocations are
    /// placed by their local ids, slice by slice, and hovering names the global id.
    #[test]
    fn a_3d_workgroup_places_each_recorded_invocation_in_its_slice() {
        use crate::profile::report::LaneInvocation;
        let shape = shape([4, 4, 2], [1, 1, 2], 16);
        // Workgroup (0, 0, 1), its second subgroup (local z = 1): lanes 0..8 active, the
        // invocations with local y < 2.
        let invocations: Vec<LaneInvocation> = (0..8)
            .map(|lane| LaneInvocation {
                local_id: [lane % 4, lane / 4, 1],
                lane: Some(lane),
            })
            .collect();
        let records = [LaneExecution {
            ballot: [0xff, 0, 0, 0],
            workgroup: [0, 0, 1],
            first_local_index: 16,
            invocations: Some(invocations),
            invocations_complete: Some(true),
        }];
        let map = DispatchMap::from_records(5, shape, &records, 1).unwrap();
        assert!(map.rows.is_none());
        assert_eq!(map.size, [4, 4, 4]);
        let state = |at| map.cell(at).unwrap().0;
        // Global z = 1 × 2 + 1 = 3.
        assert_eq!(state([3, 1, 3]), CellState::Ran);
        assert_eq!(
            state([3, 2, 3]),
            CellState::Idle,
            "lane 11 of the same subgroup"
        );
        assert_eq!(
            state([0, 0, 2]),
            CellState::NotReached,
            "the first subgroup"
        );
        assert_eq!(
            state([0, 0, 1]),
            CellState::NotReached,
            "the other workgroup"
        );
        assert!(map.describe([3, 2, 3]).contains("lane 11"));
    }
}

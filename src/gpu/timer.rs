//! Timing compute passes: GPU timestamps where the device has them, CPU wall time otherwise.

use std::time::Instant;

use serde::{Deserialize, Serialize};

use crate::Result;
use crate::gpu::GpuContext;

/// Where a time came from. Results record it, because the two are not comparable.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TimingSource {
    /// Timestamp queries at the start and end of the compute pass.
    GpuTimestamp,
    /// Host wall time from submit to completion: includes submission and wake-up latency.
    CpuWallClock,
}

/// Times one compute pass at a time.
pub struct GpuTimer {
    queries: Option<TimestampQueries>,
}

struct TimestampQueries {
    set: wgpu::QuerySet,
    resolve: wgpu::Buffer,
    staging: wgpu::Buffer,
    period_ns: f64,
}

const QUERY_BYTES: u64 = 2 * size_of::<u64>() as u64;

impl GpuTimer {
    /// Uses timestamps when the device has `TIMESTAMP_QUERY`, else the CPU clock.
    pub fn new(gpu: &GpuContext) -> Self {
        let queries = gpu.caps.timestamps.then(|| TimestampQueries {
            set: gpu.device.create_query_set(&wgpu::QuerySetDescriptor {
                label: Some("divlab.timer.queries"),
                ty: wgpu::QueryType::Timestamp,
                count: 2,
            }),
            resolve: gpu.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("divlab.timer.resolve"),
                size: QUERY_BYTES,
                usage: wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC,
                mapped_at_creation: false,
            }),
            staging: gpu.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("divlab.timer.staging"),
                size: QUERY_BYTES,
                usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            }),
            period_ns: f64::from(gpu.queue.get_timestamp_period()),
        });
        Self { queries }
    }

    /// Where this timer's numbers come from.
    pub fn source(&self) -> TimingSource {
        if self.queries.is_some() {
            TimingSource::GpuTimestamp
        } else {
            TimingSource::CpuWallClock
        }
    }

    /// Records `record` into one compute pass, runs it, and returns its duration in nanoseconds.
    pub fn time_pass(
        &self,
        gpu: &GpuContext,
        what: &str,
        record: impl FnOnce(&mut wgpu::ComputePass<'_>),
    ) -> Result<f64> {
        let mut encoder = gpu
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("divlab.timer.encoder"),
            });
        {
            let timestamp_writes =
                self.queries
                    .as_ref()
                    .map(|q| wgpu::ComputePassTimestampWrites {
                        query_set: &q.set,
                        beginning_of_pass_write_index: Some(0),
                        end_of_pass_write_index: Some(1),
                    });
            let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some(what),
                timestamp_writes,
            });
            record(&mut pass);
        }
        let Some(q) = &self.queries else {
            let start = Instant::now();
            gpu.submit_and_wait(what, encoder)?;
            return Ok(start.elapsed().as_secs_f64() * 1e9);
        };
        encoder.resolve_query_set(&q.set, 0..2, &q.resolve, 0);
        encoder.copy_buffer_to_buffer(&q.resolve, 0, &q.staging, 0, QUERY_BYTES);
        gpu.submit_and_wait(what, encoder)?;
        let ticks: Vec<u64> = crate::gpu::map_and_read(gpu, what, &q.staging)?;
        // Some drivers write timestamps that wrap or go backwards on very short passes.
        let elapsed = ticks[1].saturating_sub(ticks[0]);
        Ok(elapsed as f64 * q.period_ns)
    }
}

-- Version 7: the cards' energy counters (issue 25).
--
-- Each GPU sample's energy counter reading in joules (NVML's total energy
-- consumption, or nvidia-smi's energy.consumed on a remote rig); 0 where
-- the card has none and for older runs. A cell's energy source and
-- per-GPU split live in its gpu_stats JSON already.
ALTER TABLE gpu_samples ADD COLUMN energy_j REAL NOT NULL DEFAULT 0;

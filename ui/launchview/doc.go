// Package launchview is the Launch view: model and image, the flag form
// generated from engine/vllm's catalog (grouped; sliders, toggles and
// drop-downs; inline validation; one line of help each), the live
// `vllm serve …` and `docker run …` previews with copy buttons, pasting a
// command to fill the form, presets, the masked Hugging Face token, and the
// server's start/stop with pull progress, logs, readiness and start-up
// failure banners, and the hardware banner (SetHardware: no NVIDIA GPU,
// Docker without the NVIDIA runtime) that makes Start refuse at once on a
// computer without a GPU. "Will it fit?" (SetPrediction) predicts the
// launch the form describes, live, as `rigbench-cli predict` does: the
// memory split, the verdict, the fixes as one-click buttons and the
// predicted speed.
package launchview

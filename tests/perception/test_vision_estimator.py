"""perception.geometry (boxes, camera projection, size -> mass), perception.state_classifiers, VisionEstimator."""

from __future__ import annotations

import math

import numpy as np
import pytest

pytest.importorskip("cv2")

from perception import FusedEstimator, MetadataEstimator  # noqa: E402
from perception.geometry import (  # noqa: E402
    Box2D,
    Camera,
    aabb_volume,
    boxes_from_masks,
    kg_from_volume,
    volume_from_depth,
)
from perception.state_classifiers import OpenCVStateClassifier, TorchStateClassifier  # noqa: E402
from perception.vision import VisionEstimator  # noqa: E402
from planner.errors import ConfigError  # noqa: E402
from scenes.base import SceneObs  # noqa: E402


def _frame(h=60, w=80, colour=(90, 90, 90)):
    return np.full((h, w, 3), colour, np.uint8)


def _mask(h, w, y1, y2, x1, x2):
    m = np.zeros((h, w), bool)
    m[y1:y2, x1:x2] = True
    return m


# ---------------------------------------------------------------- boxes
def test_boxes_from_masks_skips_empty_and_malformed(caplog):
    masks = {
        "Mug|1": _mask(10, 12, 2, 5, 3, 9),
        "Plate|1": np.zeros((10, 12), bool),  # not visible
        "Bowl|1": np.ones((5, 5), bool),  # wrong shape
        "Pan|1": np.ones((10, 12, 3), bool),  # wrong dimension
    }
    boxes = boxes_from_masks(masks, (10, 12))
    assert boxes == {"Mug|1": Box2D(3, 2, 8, 4)}
    assert "Bowl|1" in caplog.text and "Pan|1" in caplog.text


def test_box_geometry():
    a, b = Box2D(0, 0, 9, 9), Box2D(5, 5, 14, 14)
    assert a.area == 100 and a.iou(a) == 1.0
    assert a.iou(b) == pytest.approx(25 / 175)
    assert Box2D(-5, -5, 3, 3).clip(10, 10) == Box2D(0, 0, 3, 3)
    assert Box2D(20, 20, 30, 30).clip(10, 10) is None


def test_camera_projects_straight_ahead_to_centre():
    cam = Camera((0.0, 1.0, 0.0), yaw=90.0, horizon=0.0, fov=90.0, width=300, height=300)
    u, v, z = cam.project(np.array([[2.0, 1.0, 0.0], [2.0, 2.0, 0.0]]))
    assert (u[0], v[0], z[0]) == pytest.approx((150, 150, 2))
    assert v[1] == pytest.approx(75.0)  # 1 m up at 2 m, focal 150 px: 75 px above the centre
    down = Camera((0.0, 1.0, 0.0), yaw=90.0, horizon=30.0, fov=90.0, width=300, height=300)
    assert down.project(np.array([[2.0, 1.0, 0.0]]))[1][0] < 150  # looking down moves the point up


def test_projected_box_matches_recorded_frame(event_of, traces_dir):
    cv2 = pytest.importorskip("cv2")
    meta = event_of("prepare_going_to_bed", 8)  # the desk lamp was just switched on
    cam = Camera.from_metadata(meta)
    lamp = next(o for o in meta["objects"] if o["objectType"] == "DeskLamp")
    box = cam.project_box(lamp)
    assert box is not None and 20 < box.width < 80 and 20 < box.height < 80
    rgb = cv2.cvtColor(cv2.imread(str(traces_dir / "prepare_going_to_bed" / "event_08.png")), cv2.COLOR_BGR2RGB)
    crop = rgb[box.y1 : box.y2 + 1, box.x1 : box.x2 + 1]
    assert OpenCVStateClassifier().predict(crop, "DeskLamp")["on"] > 0.9
    assert Camera.from_metadata({"agent": {}}) is None
    assert cam.project_box({"objectId": "x"}) is None


# ---------------------------------------------------------------- size
def test_volume_from_depth_of_a_flat_square():
    h = w = 100
    depth = np.full((h, w), 2.0)
    mask = _mask(h, w, 40, 60, 40, 60)  # 20 px at 2 m, f = 50 px -> 0.8 m side
    vol = volume_from_depth(mask, depth, fov=90.0)
    side = 0.9 * 19 * 2.0 / 50  # 5-95 percentile extent of 20 pixel centres = 0.9 * 19 px
    assert vol == pytest.approx(side**3, rel=0.02)  # face-on: thickness taken as the smaller side
    assert volume_from_depth(mask, depth[:50]) is None
    assert volume_from_depth(np.zeros((h, w), bool), depth) is None
    assert volume_from_depth(mask, np.full((h, w), np.nan)) is None


def test_kg_from_volume_and_aabb():
    assert kg_from_volume(0.001, "Metal") < kg_from_volume(0.01, "Metal")
    assert kg_from_volume(0.01, "Fabric") < kg_from_volume(0.01, "Ceramic")
    assert kg_from_volume(0.01, "Unobtainium") == kg_from_volume(0.01)
    with pytest.raises(ConfigError):
        kg_from_volume(-1.0)
    assert aabb_volume({"axisAlignedBoundingBox": {"size": {"x": 0.1, "y": 0.2, "z": 0.5}}}) == pytest.approx(0.01)
    assert aabb_volume({}) is None


# ---------------------------------------------------------------- OpenCV baseline
def test_opencv_heuristics_on_synthetic_crops():
    clf = OpenCVStateClassifier()
    assert clf.predict(_frame(20, 20, (250, 250, 245)))["on"] > 0.9  # glowing
    assert clf.predict(_frame(20, 20, (70, 70, 70)))["on"] < 0.1
    cup = _frame(40, 40, (235, 235, 235))
    cup[2:18, 12:28] = (90, 45, 15)  # coffee in the top centre
    assert clf.predict(cup)["filled"] > 0.5
    assert clf.predict(_frame(40, 40, (235, 235, 235)))["filled"] < 0.1
    plate = _frame(40, 40, (235, 235, 235))
    plate[5:35, 5:35] = (110, 70, 30)  # brown stain over most of it
    assert clf.predict(plate)["dirty"] > 0.5
    assert clf.predict(_frame(3, 3)) == {}


# ---------------------------------------------------------------- the estimator
def test_vision_estimator_on_masks_and_depth(priors):
    h, w = 60, 80
    rgb = _frame(h, w)
    rgb[10:30, 10:30] = (250, 250, 245)  # a lit toaster
    masks = {"Toaster|1": _mask(h, w, 10, 30, 10, 30), "Sofa|1": _mask(h, w, 35, 55, 40, 75)}
    rgb[35:55, 40:75] = (250, 250, 245)  # bright sofa: glows, but sofas are never "on"
    depth = np.full((h, w), 1.5, np.float32)
    obs = SceneObs(rgb=rgb, depth=depth, instance_masks=masks)
    est = VisionEstimator(priors=priors)
    dets = {d.object_id: d for d in est.detect(obs)}
    assert dets["Toaster|1"].states["on"] > 0.9 and "on" not in dets["Sofa|1"].states
    assert dets["Toaster|1"].volume_m3 and dets["Toaster|1"].volume_m3 > 0
    scene = est.estimate(obs)
    toaster = scene.by_id("Toaster|1")
    assert toaster.state.already_in_use.value == "reversible-using" and toaster.source == "vision"
    assert {"material", "temperature"} <= set(toaster.unknown)  # frames cannot tell
    assert "mass" not in toaster.unknown


@pytest.mark.parametrize(
    "obs",
    [
        SceneObs(),
        SceneObs(rgb=np.zeros((0, 0, 3), np.uint8)),
        SceneObs(rgb=np.zeros((10, 10), np.uint8)),
        SceneObs(rgb=_frame(), instance_masks={"Mug|1": np.ones((5, 5), bool)}),
        SceneObs(rgb=_frame(), extra={"boxes2d": {"Mug|1": "nonsense", "Cup|1": (1, 2), "Bowl|1": (50, 50, 10, 10)}}),
    ],
)
def test_bad_frames_give_empty_scenes(obs, priors):
    assert VisionEstimator(priors=priors).estimate(obs).objects == ()


def test_bad_depth_is_ignored_and_classifier_errors_are_contained(priors):
    class Broken:
        states = ("on",)

        def predict(self, crop, category=None):
            raise RuntimeError("model crashed")

    obs = SceneObs(rgb=_frame(), depth=np.ones((3, 3)), extra={"boxes2d": {"Mug|1": (5, 5, 30, 30)}})
    rec = VisionEstimator(Broken(), priors=priors).estimate(obs).objects[0]
    assert rec.object_id == "Mug|1" and set(rec.unknown) == {
        "mass",
        "material",
        "temperature",
        "already_in_use",
        "condition",
    }
    with pytest.raises(ConfigError, match="StateClassifier"):
        VisionEstimator(object())  # type: ignore[arg-type]


def test_metadata_wins_and_frames_fill(event_of, traces_dir, priors):
    cv2 = pytest.importorskip("cv2")
    from perception.evaluation import projected_boxes

    meta = event_of("prepare_going_to_bed", 8)
    rgb = cv2.cvtColor(cv2.imread(str(traces_dir / "prepare_going_to_bed" / "event_08.png")), cv2.COLOR_BGR2RGB)
    obs = SceneObs(objects=tuple(meta["objects"]), rgb=rgb, extra={"boxes2d": projected_boxes(meta)})
    fused = FusedEstimator([MetadataEstimator(priors=priors), VisionEstimator(priors=priors)], priors=priors)
    scene = fused.estimate(obs)
    assert len(scene.objects) == len(meta["objects"])
    lamp = next(r for r in scene.objects if r.category == "DeskLamp")
    assert lamp.source == "metadata" and lamp.state.mass.value == "medium"


# ---------------------------------------------------------------- torch interface
@pytest.fixture(scope="module")
def tiny_model():
    torch = pytest.importorskip("torch")
    torch.manual_seed(0)
    return torch.nn.Sequential(
        torch.nn.Conv2d(3, 4, 3),
        torch.nn.AdaptiveAvgPool2d(1),
        torch.nn.Flatten(),
        torch.nn.Linear(4, 5),
    ).eval()


def _script(model, path):
    import warnings

    import torch

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # TorchScript is deprecated but still supported
        torch.jit.save(torch.jit.script(model), str(path))
    return path


def test_torch_classifier_torchscript_and_state_dict(tiny_model, tmp_path):
    torch = pytest.importorskip("torch")
    ts = _script(tiny_model, tmp_path / "clf.pt")
    sd = tmp_path / "clf_sd.pt"
    torch.save({"state_dict": tiny_model.state_dict()}, sd)
    crop = np.random.default_rng(0).integers(0, 255, (30, 40, 3), dtype=np.uint8)
    a = TorchStateClassifier(ts, input_size=16).predict(crop)
    fresh = type(tiny_model)(*[type(m)(*_args(m)) for m in tiny_model])
    b = TorchStateClassifier(sd, model=fresh, input_size=16).predict(crop)
    assert set(a) == {"dirty", "broken", "filled", "open", "on"} and all(0 <= p <= 1 for p in a.values())
    assert a == pytest.approx(b)
    batch = TorchStateClassifier(ts, input_size=16).predict_batch([crop, np.zeros((2, 2, 3), np.uint8)])
    assert batch[0] == pytest.approx(a) and batch[1] == {}
    # pluggable into the estimator
    obs = SceneObs(rgb=_frame(), extra={"boxes2d": {"Mug|1": (5, 5, 40, 40)}})
    det = VisionEstimator(TorchStateClassifier(ts, input_size=16)).detect(obs)[0]
    assert set(det.states) == {"dirty", "broken", "filled"}  # mugs are never "open" or "on"


def _args(m):
    import torch

    if isinstance(m, torch.nn.Conv2d):
        return (m.in_channels, m.out_channels, m.kernel_size)
    if isinstance(m, torch.nn.Linear):
        return (m.in_features, m.out_features)
    if isinstance(m, torch.nn.AdaptiveAvgPool2d):
        return (m.output_size,)
    return ()


def test_torch_classifier_errors(tiny_model, tmp_path):
    torch = pytest.importorskip("torch")
    with pytest.raises(ConfigError, match="does not exist"):
        TorchStateClassifier(tmp_path / "missing.pt")
    sd = tmp_path / "sd.pt"
    torch.save(tiny_model.state_dict(), sd)
    with pytest.raises(ConfigError, match="neither"):
        TorchStateClassifier(sd)
    ts = _script(tiny_model, tmp_path / "ts.pt")
    with pytest.raises(ConfigError, match=r"expected \(1, 2\)"):
        TorchStateClassifier(ts, states=("dirty", "on"), input_size=16)
    assert math.isfinite(TorchStateClassifier(ts, input_size=16).predict(_frame(20, 20))["on"])


@pytest.mark.slow
def test_torch_classifier_exported_program(tiny_model, tmp_path):
    torch = pytest.importorskip("torch")
    batch = torch.export.Dim("batch", min=1, max=1024)
    ep = torch.export.export(tiny_model, (torch.zeros(2, 3, 16, 16),), dynamic_shapes=({0: batch},))
    path = tmp_path / "clf.pt2"
    torch.export.save(ep, str(path))
    crop = np.random.default_rng(0).integers(0, 255, (30, 40, 3), dtype=np.uint8)
    expected = TorchStateClassifier(_script(tiny_model, tmp_path / "ts.pt"), input_size=16).predict(crop)
    clf = TorchStateClassifier(path, input_size=16)
    assert clf.predict(crop) == pytest.approx(expected, abs=1e-5)
    assert len(clf.predict_batch([crop, crop, crop])) == 3


# ---------------------------------------------------------------- schematic frames (embedded simulator)
LEGEND = {
    "Hot": (230, 40, 40),
    "on": (250, 210, 0),
    "dirty": (120, 80, 40),
    "broken": (220, 0, 0),
    "liquid": (0, 200, 220),
}


def test_schematic_classifier_reads_legend_marks(priors):
    cv2 = pytest.importorskip("cv2")
    from perception.state_classifiers import SchematicStateClassifier

    h, w = 60, 80
    rgb = _frame(h, w, (40, 40, 40))
    cv2.rectangle(rgb, (5, 5), (25, 25), (120, 80, 40), -1)  # dirty plate: brown fill
    cv2.rectangle(rgb, (40, 5), (70, 30), (150, 150, 150), -1)
    cv2.rectangle(rgb, (40, 5), (70, 30), (230, 40, 40), 2)  # hot pan: red outline
    cv2.circle(rgb, (55, 17), 3, (0, 200, 220), -1)  # filled
    masks = {"Plate|1": _mask(h, w, 5, 26, 5, 26), "Pot|1": _mask(h, w, 5, 31, 40, 71)}
    clf = SchematicStateClassifier(LEGEND)
    assert set(clf.states) == {"hot", "on", "dirty", "broken", "filled"}
    est = VisionEstimator(clf, priors=priors, mask_crops=True)
    dets = {d.object_id: d.states for d in est.detect(SceneObs(rgb=rgb, instance_masks=masks))}
    assert dets["Plate|1"]["dirty"] == 1.0 and dets["Plate|1"].get("hot") == 0.0
    assert dets["Pot|1"]["hot"] == 1.0 and dets["Pot|1"]["filled"] == 1.0 and dets["Pot|1"]["dirty"] == 0.0
    scene = est.estimate(SceneObs(rgb=rgb, instance_masks=masks))
    pot = scene.by_id("Pot|1")
    assert pot.state.temperature.value == "Hot" and "temperature" not in pot.unknown  # a mark, not RGB physics
    assert pot.state.already_in_use.value == "reversible-using"  # a filled container
    assert scene.by_id("Plate|1").state.condition.value == "dirty"


def test_embedded_simulator_frames_end_to_end(priors):
    pytest.importorskip("scenes.embedded")
    from perception.evaluation import embedded_eval

    res = embedded_eval(["kitchen"], seeds=1, perturbations=6, priors=priors)
    legend = res["estimators"]["legend"]
    assert res["frames"] == 1 and legend["objects"] > 20
    assert legend["variables"]["condition"]["rate"] >= legend["variables"]["condition"]["prior_only_rate"]


def test_frames_benchmark_reads_the_recorded_traces(data_dir, traces_dir, priors):
    from perception.evaluation import frames_eval, iter_trace_frames
    from scenes.thor.traces import load_trace, trace_names

    frames = list(iter_trace_frames(data_dir))
    expected = sum(f is not None for n in trace_names(data_dir) for f in load_trace(n, data_dir).frames)
    assert len(frames) == expected > 0
    label, meta, rgb = frames[0]
    assert label.endswith("/event_00") and "objects" in meta and rgb.shape[2] == 3
    res = frames_eval(data_dir, priors=priors)
    assert res["frames"] == expected and res["objects"] > 0
    assert set(res["variables"]) == {"mass", "material", "temperature", "already_in_use", "condition"}

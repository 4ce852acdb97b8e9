"""Constants of the embedded simulator: AI2-THOR 5.0.0's defaults and the approximations fitted to the recordings."""

from __future__ import annotations

INF = float("inf")


AGENT_RADIUS = 0.2
"""Horizontal radius of the agent's body used for reachability (AI2-THOR's capsule is about this wide)."""
CAMERA_HEIGHT = 0.675
"""Camera above the agent's position when standing (real FloorPlan1 event: 1.576 - 0.901)."""
CROUCH_DROP = 0.22
HAND_OFFSET = (0.0, -0.16, 0.38)
"""Held object position relative to the camera (right, up, forward): real ``heldObjectPose.localPosition``."""
HORIZON_LIMITS = (-30.0, 60.0)
FLOOR_TRIGGER_DEFAULT = 0.45
"""Height (m) below which a resting object also lies in the Floor's receptacle volume, when a scene gives no
evidence (real dumps: floor-contained objects rest below 0.47 m, table tops at 0.47-0.57 m are not)."""

ENCLOSING = frozenset({"Fridge", "Cabinet", "Drawer", "Microwave", "Safe", "Box", "LaundryHamper", "Kettle"})
"""Openable receptacles whose closed doors hide their contents from the camera. Which closed receptacles refuse
objects is AI2-THOR's ``MustBeOpenToPlaceObjectsIn`` (:mod:`planner.schemas.thor_rules`), not this set: a closed
Safe takes objects; a Toilet's lid hides nothing and takes them (the recording CleanToilets puts a SprayBottle on a
closed Toilet)."""
OBSTACLE_SHRINK = 0.1
"""Metres taken off each side of an obstacle's box: colliders are tighter than render boxes (trace
prepare_going_to_bed walks 0.18 m from a DogBed's box)."""
STEP_SECONDS = 0.02
"""Simulated seconds per action: the median ``currentTime`` increment of real AI2-THOR 5.0.0 actions in the
recordings (0.019 s over 67 actions; DropHandObject waits for physics, about 1.1 s)."""
ROOM_TEMP_AFTER = 10.0
"""AI2-THOR's ``SimObjPhysics.HowManySecondsUntilRoomTemp`` default: seconds after leaving a heat/cold zone."""
ELECTRONICS = frozenset({"CellPhone", "Laptop", "Television"})
"""Broken ones switch off and cannot be turned on (object-types docs [S5])."""
SLICE_RESULT = {"Apple": 8, "Bread": 10, "Lettuce": 7, "Potato": 8, "Tomato": 7}
"""Number of ``XSliced`` pieces SliceObject makes (not in the notes: AI2-THOR's prefabs decide; chosen). An Egg
becomes one EggCracked; a sliceable type not listed here (or among the extension types) cannot be sliced."""
KNIVES = frozenset({"Knife", "ButterKnife"})
WATER_SOURCES = frozenset({"Faucet", "ShowerHead"})
BASINS = frozenset({"SinkBasin", "BathtubBasin"})
OBSTACLE_SKIP = frozenset({
    "Floor", "Window", "Painting", "Poster", "Curtains", "Blinds", "LightSwitch", "Mirror", "ShowerCurtain",
    "ShowerHead", "Faucet", "SinkBasin", "BathtubBasin", "StoveBurner", "StoveKnob", "TowelHolder",
    "HandTowelHolder", "ToiletPaperHanger", "Cabinet", "Drawer", "Shelf", "ShowerGlass", "ShowerDoor", "RoomDecor",
})  # fmt: skip
"""Types that never block the agent's body (wall-mounted, parts of furniture, or flat on the floor)."""


POSE_ONLY = frozenset({
    "Pass", "Done", "Wait", "GetReachablePositions", "MoveAhead", "MoveBack", "MoveLeft", "MoveRight",
    "RotateLeft", "RotateRight", "LookUp", "LookDown", "Crouch", "Stand", "Teleport", "TeleportFull",
})  # fmt: skip
"""Actions that change at most the agent's pose (and the held object's position)."""

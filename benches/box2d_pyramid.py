#!/usr/bin/env python3
"""Box2D v3 on zwang's planar pyramid, for the time-stepping comparison.

The scene of `benches/mujoco_pyramid.py` and `cargo run --release
--example pyramid`: ROWS rows of 1 m boxes of 1 kg (the bottom row ROWS
boxes side by side, touching, each row above offset by half a box),
friction 0.6 on a floor, g = 9.81. Runs DURATION s at Box2D's usual
60 Hz with 4 substeps (or DT and SUBSTEPS given), sleeping off (zwang
and MuJoCo do not put bodies to sleep), and prints the wall time per step,
the top box's drift and the deepest overlap seen (from the boxes'
corners: the bindings do not give the contact manifolds).

    python3 benches/box2d_pyramid.py ROWS DURATION [DT [SUBSTEPS]]

Needs `pip install pyb2d3` (Box2D v3's Python bindings; not needed by the
tests).
"""
import math
import sys
import time

import pyb2d3 as b2


def build(rows):
    world = b2.World(gravity=(0.0, -9.81))
    world.sleeping_enabled = False
    floor = world.create_static_body(position=(0.0, -1.0))
    floor.create_polygon_shape(
        b2.shape_def(material=b2.surface_material(friction=0.6)), b2.box(200.0, 1.0)
    )
    boxes = []
    for r in range(rows):
        count = rows - r
        for i in range(count):
            x = i - (count - 1) / 2.0
            body = world.create_dynamic_body(position=(x, 0.5 + r))
            body.create_polygon_shape(
                b2.shape_def(density=1.0, material=b2.surface_material(friction=0.6)),
                b2.box(0.5, 0.5),
            )
            boxes.append(body)
    return world, boxes


def corners_y(body):
    """The lowest and highest corner heights of a unit box."""
    x, y = body.position
    c, s = math.cos(body.angle), math.sin(body.angle)
    ys = [y + s * dx + c * dy for dx in (-0.5, 0.5) for dy in (-0.5, 0.5)]
    return min(ys), max(ys)


def deepest_overlap(boxes):
    """The deepest overlap of a box with the floor or with a box it rests
    on (its centre within 0.9 m of it sideways, its bottom above the
    middle of it), from the corners' heights: exact
    for a pyramid that stands (boxes turn by little)."""
    deepest = 0.0
    spans = [(b.position[0], *corners_y(b)) for b in boxes]
    for k, (x, low, high) in enumerate(spans):
        deepest = max(deepest, -low)
        for j, (x2, low2, _) in enumerate(spans):
            if j != k and abs(x2 - x) < 0.9 and low2 > 0.5 * (low + high):
                deepest = max(deepest, high - low2)
    return deepest


def main():
    rows, duration = int(sys.argv[1]), float(sys.argv[2])
    dt = float(sys.argv[3]) if len(sys.argv) > 3 else 1.0 / 60.0
    substeps = int(sys.argv[4]) if len(sys.argv) > 4 else 4
    steps = round(duration / dt)
    # The time of the steps alone; then the same run again, the overlaps
    # read after each step.
    world, boxes = build(rows)
    start = time.perf_counter()
    for _ in range(steps):
        world.step(dt, substeps)
    seconds = time.perf_counter() - start
    world, boxes = build(rows)
    top = boxes[-1]
    start_pos = top.position
    deepest = 0.0
    for _ in range(steps):
        world.step(dt, substeps)
        deepest = max(deepest, deepest_overlap(boxes))
    end = top.position
    print(
        f"box2d v3 (pyb2d3 {b2.__version__ if hasattr(b2, '__version__') else ''}) dt {dt:.4g} "
        f"substeps {substeps}: rows {rows} bodies {len(boxes)} steps {steps}: "
        f"{1e3 * seconds / steps:.3f} ms/step, top drift x {end[0] - start_pos[0]:.3e} "
        f"y {end[1] - start_pos[1]:.3e} m, deepest overlap {deepest:.3e} m"
    )


if __name__ == "__main__":
    main()

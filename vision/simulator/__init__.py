"""The table simulator: realistic photos of CARIBO, Colomino and Wauri with exact truth.

``render_caribo`` / ``render_colomino`` / ``render_wauri`` (in the ``*_render`` modules)
turn one board state into a :class:`~vision.simulator.photo.Photo` (JPEG bytes, the BGR
image before compression, the ground-truth dict); :mod:`vision.simulator.dataset` writes
many of them deterministically from a seed (``boardcam dataset``), one photo with
``boardcam render``. Random legal states come from the engines (:mod:`.states`).

How a photo is made: :mod:`.scene` samples the conditions of a difficulty level (table
surface, lamp 2700-3600 K or daylight 4200-7000 K with NO white balance, ambient share,
arm/hand shadow, shadow softness, vignetting, exposure bias, sensor noise, defocus and
motion blur, sharpening, JPEG quality 60-95) and a phone pose (:mod:`.camera`: pinhole,
60-75° over the long side, tilt 0-45°, any yaw, slight roll, radial distortion k1/k2, at
30 cm or farther so that the pieces fill the frame). Pieces are rendered in 3-D with
perspective-correct textures on an undistorted canvas, lit, then distorted, blurred,
exposed, noised, tone-mapped and JPEG-compressed.

Truth JSON (``NAME.json`` next to ``NAME.jpg``), common keys:

- ``game``; ``state`` — the board state in the SPEC format (CARIBO ``{"game": "caribo",
  "notation": ...}`` as laid, Colomino board JSON in SPEC coordinates, Wauri position);
- ``pieces`` — per tile / cell / pit, with pixel positions in the photo as taken
  (distortion included, origin at the top-left pixel's centre);
- ``camera`` — pose and intrinsics (``K``, ``k1``, ``k2``, ``tilt``, ``yaw``, ``distance``,
  ``position_mm``; world frame: table plane z = 0, x east, y north, mm);
- ``conditions`` — everything sampled for the photo; ``difficulty``; ``seed`` (render the
  same photo again with ``boardcam render --seed``); ``source`` (how the state was made);
  ``image_size`` ``[width, height]``; ``image`` (file name, dataset output only).

Per game:

- CARIBO ``pieces``: ``row``, ``col`` (notation grid), ``tile`` (code), ``segments``
  (six letters, index 0 = segment 1), ``center_px``, ``corners_px`` (top face, from the
  top tip clockwise in the tile's frame), ``segment_centers_px`` (index 0 = segment 1),
  ``world_mm``, ``angle_deg``; plus ``paint_set`` (the six paint colours used).
  Tiles are 40 mm across the flats, 10 mm thick.
- Colomino ``pieces``: every cell with ``row``, ``col``, ``cell`` (``.``, ``*`` or NESW
  code), ``printed`` (colour or null), ``center_px`` and, for tiles,
  ``triangle_centers_px`` (N, E, S, W); ``board_corners_px`` (playing field corners NW,
  NE, SE, SW in SPEC directions, south = base line), ``board_outer_corners_px``,
  ``south_side`` (image side the base line is nearest to), ``palette``.
- Wauri ``pieces``: ``pit`` (``south1``..``south6``, ``north1``..``north6``,
  ``store_south``, ``store_north``), ``owner``, ``index``, ``count``, ``center_px``,
  ``seeds_px``; ``board_corners_px`` (order in ``board_corners_order``), ``south_side``
  (the image side nearest south's row; the photographer usually sits at south),
  ``board_rotation_deg``.
"""

"""The WebGPU part of the contract package: the WGSL template files that sit
next to the JSON files in contract/v1/ (written by hand, not generated) and
the "webgpu" section of metadata.json that tells a renderer how to use them.

liblrelu (lrelu_kernel_source, `lrelu emit`) and the JavaScript module (js/)
render these files by the rule in RENDER; the sha256 of each file goes into
metadata.json's "templates".
"""

import os

# Every WGSL file of the package, in the order metadata.json lists them.
TEMPLATE_FILES = (
    "unary-scalar.wgsl.jinja",
    "unary-vec4.wgsl.jinja",
    "multiply-f32.wgsl",
    "helpers-f32.wgsl",
    "helpers-f16.wgsl",
)

RENDER = (
    "Text substitution (a subset of Jinja: variables only). Replace "
    "{{HELPERS}} with the dtype's helper files joined by one newline, then "
    "every {{WORD}}, {{LANES}} and {{DTYPE}} with the variant's values for "
    "the dtype and every {{WORKGROUP_SIZE}} with the workgroup size in "
    "decimal.")


def read_templates(directory, names=TEMPLATE_FILES):
  """{file name: bytes} of the WGSL files `names` in `directory` (also the
  ai.onnx.PRelu package's, contract/prelu/generate.py)."""
  out = {}
  for name in names:
    with open(os.path.join(directory, name), "rb") as f:
      out[name] = f.read()
  return out


def section():
  """metadata.json's "webgpu": variants, helpers and the binding layout."""
  return {
      "dtypes": ["float32", "float16"],
      "variants": [
          {"name": "unary-vec4",
           "template": "unary-vec4.wgsl.jinja",
           "words": {"float32": {"word": "vec4<u32>", "lanes": 4},
                     "float16": {"word": "vec2<u32>", "lanes": 4}},
           "description": "four elements per invocation; the default"},
          {"name": "unary-scalar",
           "template": "unary-scalar.wgsl.jinja",
           "words": {"float32": {"word": "u32", "lanes": 1},
                     "float16": {"word": "u32", "lanes": 2}},
           "description": "one u32 word (one float32 or two float16 "
                          "elements) per invocation"},
      ],
      "helpers": {
          "float32": ["multiply-f32.wgsl", "helpers-f32.wgsl"],
          "float16": ["multiply-f32.wgsl", "helpers-f16.wgsl"],
      },
      "workgroup_size": {"default": 256, "max": 256},
      "render": RENDER,
      "entry_points": {
          "forward": "y from x: x at binding 0, y at binding 2",
          "backward": "dx from dy at binding 0 and s (x, or y when "
                      "alpha > 0) at binding 1, dx at binding 2",
      },
      "params": "binding 3, uniform, 16 bytes: u32 bits of alpha rounded "
                "to float32, u32 element count n, 8 bytes padding",
      "dispatch": "ceil(ceil(n / lanes) / workgroup_size) workgroups, in x "
                  "and y when that exceeds 65535",
  }

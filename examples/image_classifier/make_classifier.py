#!/usr/bin/python3
"""Writes the image classifier example: a small CNN, sample images and the
PyTorch reference outputs the example's tests compare with.

The CNN tells four kinds of 32x32 RGB pattern apart (horizontal stripes,
vertical stripes, diagonal stripes, checkerboard). It is trained here for a few
seconds on generated patterns, from fixed seeds, on one thread.

Writes, next to this script:
  stripes.onnx             the model: input "image" float32[N, 3, 32, 32] (RGB, 0..1),
                           output "probabilities" float32[N, 4]
  images/NAME.ppm          sample images (binary PPM, P6), one per class, and
                           images/bad.ppm (a PPM whose pixel data is cut short)
  expected/NAME.txt        what `classify images/NAME.ppm` must print, computed by
                           PyTorch on the image as read back from the PPM file

Usage: /usr/bin/python3 examples/image_classifier/make_classifier.py
"""
import os

import numpy as np
import torch

CLASSES = ["horizontal", "vertical", "diagonal", "checkerboard"]
SIZE = 32
HERE = os.path.dirname(os.path.abspath(__file__))


def pattern(rng, kind):
    """One uint8 [SIZE, SIZE, 3] image of the given class."""
    period = rng.randint(4, 9)
    phase = rng.randint(0, period)
    y, x = np.mgrid[0:SIZE, 0:SIZE]
    if kind == 0:
        on = (y + phase) % period < period // 2
    elif kind == 1:
        on = (x + phase) % period < period // 2
    elif kind == 2:
        on = (x + y + phase) % period < period // 2
    else:
        on = ((x // (period // 2 + 1)) + (y // (period // 2 + 1))) % 2 == 0
    fg = rng.randint(128, 256, size=3)
    bg = rng.randint(0, 96, size=3)
    image = np.where(on[:, :, None], fg, bg) + rng.randint(-20, 21, size=(SIZE, SIZE, 3))
    return np.clip(image, 0, 255).astype(np.uint8)


def to_tensor(images):
    """uint8 [B, H, W, 3] to float32 [B, 3, H, W] in 0..1, as classify.cpp does."""
    return torch.from_numpy(np.stack(images)).permute(0, 3, 1, 2).float() / 255.0


class Cnn(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = torch.nn.Conv2d(3, 8, 3, padding=1)
        self.conv2 = torch.nn.Conv2d(8, 16, 3, padding=1)
        self.fc = torch.nn.Linear(16, len(CLASSES))

    def forward(self, image):
        x = torch.nn.functional.max_pool2d(torch.relu(self.conv1(image)), 2)
        x = torch.nn.functional.max_pool2d(torch.relu(self.conv2(x)), 2)
        x = torch.nn.functional.adaptive_avg_pool2d(x, 1).flatten(1)
        return torch.softmax(self.fc(x), dim=1)


def train():
    torch.manual_seed(0)
    rng = np.random.RandomState(0)
    model = Cnn()
    optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
    for _ in range(300):
        kinds = rng.randint(0, len(CLASSES), size=32)
        batch = to_tensor([pattern(rng, k) for k in kinds])
        loss = torch.nn.functional.nll_loss(torch.log(model(batch) + 1e-9),
                                            torch.from_numpy(kinds))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    return model.eval()


def write_ppm(path, image):
    with open(path, "wb") as f:
        f.write(b"P6\n# onnxcc example image\n%d %d\n255\n" % (image.shape[1], image.shape[0]))
        f.write(image.tobytes())


def main():
    torch.set_num_threads(1)
    model = train()
    torch.onnx.export(model, torch.zeros(1, 3, SIZE, SIZE), os.path.join(HERE, "stripes.onnx"),
                      input_names=["image"], output_names=["probabilities"],
                      dynamic_axes={"image": {0: "N"}, "probabilities": {0: "N"}},
                      opset_version=13)
    os.makedirs(os.path.join(HERE, "images"), exist_ok=True)
    os.makedirs(os.path.join(HERE, "expected"), exist_ok=True)
    rng = np.random.RandomState(1)
    correct = 0
    for kind, name in enumerate(CLASSES):
        image = pattern(rng, kind)
        write_ppm(os.path.join(HERE, "images", name + ".ppm"), image)
        with torch.no_grad():
            probs = model.double()(to_tensor([image]).double())[0].numpy()
        best = int(np.argmax(probs))
        correct += best == kind
        with open(os.path.join(HERE, "expected", name + ".txt"), "w") as f:
            f.write("class %d %s\n" % (best, CLASSES[best]))
            f.write("probabilities %s\n" % " ".join("%.6e" % p for p in probs))
    # A file that claims 32x32 pixels and holds fewer bytes.
    with open(os.path.join(HERE, "images", "bad.ppm"), "wb") as f:
        f.write(b"P6\n32 32\n255\n" + bytes(100))
    print("sample images classified correctly: %d of %d" % (correct, len(CLASSES)))


if __name__ == "__main__":
    main()

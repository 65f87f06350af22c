//! Network presets of Zeng et al. Table 1: full conv/fc layer tables where a
//! standard architecture reproduces the table, given figures where none does.
//!
//! Units: FLOP per sample (forward), plain counts (weights, values).

use super::layer::Layer;
use super::network::{GivenFigures, Network};

/// A network the UI offers by name.
#[derive(Clone, Debug, PartialEq)]
pub struct NetworkPreset {
    /// Stable identifier, used in URLs and the CLI.
    pub id: &'static str,
    /// Shown in the picker.
    pub label: &'static str,
    /// Where the figures come from and what to watch out for.
    pub note: &'static str,
    pub network: Network,
}

/// Every preset, in the order the picker shows them.
pub fn network_presets() -> Vec<NetworkPreset> {
    vec![
        NetworkPreset {
            id: "alexnet",
            label: "AlexNet (TensorFlow benchmarks)",
            note: "TensorFlow-benchmarks AlexNet: conv channels 64-192-384-384-256, 227×227 input \
                   (conv1 11×11 stride 4 VALID gives 55×55), fc 9216-4096-4096-1000; 61,827,776 weights, \
                   1,677,577,600 forward FLOP per sample (Table 1: 1.6776e9). torchvision's AlexNet \
                   (64-192-384-256-256) is 14.9% lower. Extra forward FLOP per sample = 83 × 515,816 \
                   layer-output elements, as the authors' spreadsheet adds for activations (AlexNet only). \
                   Values per transfer = 63,380,347, the figure Tables 6-7 imply (a given figure); \
                   Tables 4-5 match the plain weights count, which you get by clearing that field.",
            network: Network {
                name: "AlexNet".into(),
                layers: alexnet_layers(),
                given: None,
                pushes: Some(19),
                extra_forward_flop_per_sample: 83.0 * 515_816.0,
                transfer_values: Some(63_380_347.0),
                pull_values: None,
                ignored: Vec::new(),
            },
        },
        given_preset(
            "overfeat",
            "OverFeat (given figures)",
            "Table 1's figures, taken as given: forward 5.8584e9 FLOP per sample, backward 1.2402e10 FLOP \
             (= 85 × 145,909,792 weights, which the OverFeat fast model does have). The forward figure is \
             only reproduced if conv2's output is taken as 28×28 instead of 24×24 (an authors' slip; the \
             standard model gives 5.6028e9), so no standard layer table reproduces it.",
            "OverFeat",
            5.8584e9,
            1.2402e10,
            Some(20),
            None,
        ),
        vgg_preset(
            "vgg11",
            "VGG-11 (config A)",
            "VGG config A, 224×224 input, 1000 classes; Eq. 4 over conv and fc layers. Table 1: forward \
             1.5224e10, backward 1.1292e10 = 85 × weights. Values per transfer = 132,867,435: weights + \
             biases of TensorFlow's 1001-class VGG-11 plus 2 scalars, which Tables 6-7 transfer; Tables \
             4-5 match the plain weights count, which you get by clearing that field.",
            "VGG-11",
            &VGG_A,
            Some(24),
            Some(132_867_435.0),
        ),
        vgg_preset(
            "vgg13",
            "VGG-13 (config B)",
            "VGG config B, 224×224 input, 1000 classes; Eq. 4 over conv and fc layers. Table 1: forward \
             2.2623e10, backward 1.1308e10 = 85 × weights. Table 1 gives no push count for it.",
            "VGG-13",
            &VGG_B,
            None,
            None,
        ),
        vgg_preset(
            "vgg16c",
            "VGG-16 C (with 1×1 convs)",
            "VGG config C: like D, but the last conv of blocks 3-5 is 1×1. 224×224 input, 1000 classes. \
             Table 1: forward 2.3548e10, backward 1.1359e10 = 85 × weights; this table reproduces both. \
             Pushes = 34, as printed on Table 1's \"Vgg16C\" row: the weights and biases of its 16 conv \
             and fc layers plus 2 scalars, the count that gives A's 24 and E's 40.",
            "VGG-16 C",
            &VGG_C,
            Some(34),
            None,
        ),
        vgg_preset(
            "vgg16",
            "VGG-16 (config D)",
            "VGG config D, 224×224 input, 1000 classes; Eq. 4 over conv and fc layers. Table 1: forward \
             3.0947e10, backward 1.1759e10 = 85 × weights. Pushes = 34: Table 1 prints it on the \"Vgg16C\" \
             row, and D has the same 16 conv and fc layers, so the same count. Values per transfer = 138,361,643: weights \
             + biases of TensorFlow's 1001-class VGG-16 plus 2 scalars, which Tables 6-7 transfer; Tables \
             4-5 match the plain weights count, which you get by clearing that field.",
            "VGG-16",
            &VGG_D,
            Some(34),
            Some(138_361_643.0),
        ),
        vgg_preset(
            "vgg19",
            "VGG-19 (config E)",
            "VGG config E, 224×224 input, 1000 classes; Eq. 4 over conv and fc layers. Table 1: forward \
             3.9270e10, backward 1.2210e10 = 85 × weights. Values per transfer = 143,671,339: weights + \
             biases of TensorFlow's 1001-class VGG-19 plus 2 scalars, which Tables 6-7 transfer; Tables \
             4-5 match the plain weights count, which you get by clearing that field.",
            "VGG-19",
            &VGG_E,
            Some(40),
            Some(143_671_339.0),
        ),
        given_preset(
            "resnet18",
            "ResNet-18 (given figures)",
            RESNET_NOTE,
            "ResNet-18",
            3.5924e9,
            9.7808e8,
            None,
            None,
        ),
        given_preset(
            "resnet34",
            "ResNet-34 (given figures)",
            RESNET_NOTE,
            "ResNet-34",
            7.2898e9,
            1.8366e9,
            None,
            None,
        ),
        given_preset(
            "resnet50",
            "ResNet-50 (given figures)",
            "Table 1's figures, taken as given: they cannot be derived from the standard ResNet \
             architecture (the standard ResNet-50 has about 25.5 million weights and 8.2e9 forward FLOP; \
             Table 1 implies 21.2 million and 6.99e9). Backward = 85 × weights. Values per transfer = \
             25,612,205, the figure Tables 6-7 imply (a given figure); clear it to send the weights count.",
            "ResNet-50",
            6.9943e9,
            1.8015e9,
            Some(269),
            Some(25_612_205.0),
        ),
        given_preset(
            "resnet101",
            "ResNet-101 (given figures)",
            RESNET_NOTE,
            "ResNet-101",
            1.4421e10,
            3.4114e9,
            Some(524),
            None,
        ),
        given_preset(
            "resnet152",
            "ResNet-152 (given figures)",
            RESNET_NOTE,
            "ResNet-152",
            2.1845e10,
            4.7372e9,
            Some(779),
            None,
        ),
    ]
}

/// The network of the preset with this id, if any.
pub fn network_preset(id: &str) -> Option<Network> {
    network_presets()
        .into_iter()
        .find(|p| p.id == id)
        .map(|p| p.network)
}

const RESNET_NOTE: &str = "Table 1's figures, taken as given: the ResNet rows cannot be derived from \
                           the standard architectures, so no layer table is shipped. Backward = 85 × weights.";

/// A preset whose figures are Table 1's own; weights = backward / 85
/// because Table 1's backward column is exactly 85 × weights.
#[allow(clippy::too_many_arguments)]
fn given_preset(
    id: &'static str,
    label: &'static str,
    note: &'static str,
    name: &str,
    forward_flop: f64,
    backward_flop: f64,
    pushes: Option<u32>,
    transfer_values: Option<f64>,
) -> NetworkPreset {
    NetworkPreset {
        id,
        label,
        note,
        network: Network {
            name: name.into(),
            layers: Vec::new(),
            given: Some(GivenFigures {
                forward_flop,
                // Whole weights; Table 1 itself has only five significant figures.
                weights: (backward_flop / 85.0).round(),
                source: format!(
                    "Zeng et al., Table 1 (given figures, not derived from layers): forward {forward_flop:.4e} \
                     FLOP per sample, backward {backward_flop:.4e} FLOP = 85 × weights"
                ),
            }),
            pushes,
            extra_forward_flop_per_sample: 0.0,
            transfer_values,
            pull_values: None,
            ignored: Vec::new(),
        },
    }
}

fn vgg_preset(
    id: &'static str,
    label: &'static str,
    note: &'static str,
    name: &str,
    blocks: &[&[(u64, u64)]; 5],
    pushes: Option<u32>,
    transfer_values: Option<f64>,
) -> NetworkPreset {
    NetworkPreset {
        id,
        label,
        note,
        network: Network {
            name: name.into(),
            layers: vgg_layers(blocks),
            given: None,
            pushes,
            extra_forward_flop_per_sample: 0.0,
            transfer_values,
            pull_values: None,
            ignored: Vec::new(),
        },
    }
}

/// TensorFlow-benchmarks AlexNet, 227×227×3 input (pooling layers omitted:
/// Eq. 4 does not count them, but they set the spatial sizes below).
fn alexnet_layers() -> Vec<Layer> {
    vec![
        Layer::conv("conv1", 3, 11, 64, 55), // 11×11 stride 4 VALID: 227 → 55; pool → 27
        Layer::conv("conv2", 64, 5, 192, 27), // SAME; pool → 13
        Layer::conv("conv3", 192, 3, 384, 13), // SAME
        Layer::conv("conv4", 384, 3, 384, 13),
        Layer::conv("conv5", 384, 3, 256, 13), // pool → 6, flatten 256·6·6 = 9216
        Layer::fc("fc6", 9216, 4096),
        Layer::fc("fc7", 4096, 4096),
        Layer::fc("fc8", 4096, 1000),
    ]
}

/// VGG blocks as (kernel, output channels) per conv; every conv is SAME
/// with stride 1 and each block ends in a 2×2 stride-2 max pool.
type VggBlocks = [&'static [(u64, u64)]; 5];

const VGG_A: VggBlocks = [
    &[(3, 64)],
    &[(3, 128)],
    &[(3, 256), (3, 256)],
    &[(3, 512), (3, 512)],
    &[(3, 512), (3, 512)],
];
const VGG_B: VggBlocks = [
    &[(3, 64), (3, 64)],
    &[(3, 128), (3, 128)],
    &[(3, 256), (3, 256)],
    &[(3, 512), (3, 512)],
    &[(3, 512), (3, 512)],
];
const VGG_C: VggBlocks = [
    &[(3, 64), (3, 64)],
    &[(3, 128), (3, 128)],
    &[(3, 256), (3, 256), (1, 256)],
    &[(3, 512), (3, 512), (1, 512)],
    &[(3, 512), (3, 512), (1, 512)],
];
const VGG_D: VggBlocks = [
    &[(3, 64), (3, 64)],
    &[(3, 128), (3, 128)],
    &[(3, 256), (3, 256), (3, 256)],
    &[(3, 512), (3, 512), (3, 512)],
    &[(3, 512), (3, 512), (3, 512)],
];
const VGG_E: VggBlocks = [
    &[(3, 64), (3, 64)],
    &[(3, 128), (3, 128)],
    &[(3, 256), (3, 256), (3, 256), (3, 256)],
    &[(3, 512), (3, 512), (3, 512), (3, 512)],
    &[(3, 512), (3, 512), (3, 512), (3, 512)],
];

/// 224×224×3 input, five blocks halving the size (224 → 7), then
/// fc 512·7·7 → 4096 → 4096 → 1000. Names follow the usual convN_M / fcN.
fn vgg_layers(blocks: &[&[(u64, u64)]; 5]) -> Vec<Layer> {
    let mut layers = Vec::new();
    let mut inch = 3;
    let mut size = 224;
    for (b, block) in blocks.iter().enumerate() {
        for (c, &(k, outn)) in block.iter().enumerate() {
            layers.push(Layer::conv(
                &format!("conv{}_{}", b + 1, c + 1),
                inch,
                k,
                outn,
                size,
            ));
            inch = outn;
        }
        size /= 2;
    }
    layers.push(Layer::fc("fc6", inch * size * size, 4096));
    layers.push(Layer::fc("fc7", 4096, 4096));
    layers.push(Layer::fc("fc8", 4096, 1000));
    layers
}

//! Activity and compliance at 关门: post counts, 潜水, 加速/延时, 诈尸, the 电梯楼. Pure logic.

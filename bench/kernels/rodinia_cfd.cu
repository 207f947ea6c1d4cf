#define GAMMA 1.4f
#define NNB 4
#define VAR_DENSITY 0
#define VAR_MOMENTUM 1
#define VAR_DENSITY_ENERGY 4

// Rodinia's helpers; the divisions are the approximate ones the IL's `div` is.
__device__ inline void compute_velocity(float density, float3 momentum, float3 &velocity) {
    velocity.x = __fdividef(momentum.x, density);
    velocity.y = __fdividef(momentum.y, density);
    velocity.z = __fdividef(momentum.z, density);
}

__device__ inline float compute_speed_sqd(float3 velocity) {
    return velocity.x * velocity.x + velocity.y * velocity.y + velocity.z * velocity.z;
}

__device__ inline float compute_pressure(float density, float density_energy, float speed_sqd) {
    return (GAMMA - 1.0f) * (density_energy - 0.5f * density * speed_sqd);
}

__device__ inline float compute_speed_of_sound(float density, float pressure) {
    return sqrtf(__fdividef(GAMMA * pressure, density));
}

__device__ inline void compute_flux_contribution(float density, float3 momentum, float density_energy, float pressure,
                                                 float3 velocity, float3 &fc_momentum_x, float3 &fc_momentum_y,
                                                 float3 &fc_momentum_z, float3 &fc_density_energy) {
    fc_momentum_x.x = velocity.x * momentum.x + pressure;
    fc_momentum_x.y = velocity.x * momentum.y;
    fc_momentum_x.z = velocity.x * momentum.z;
    fc_momentum_y.x = fc_momentum_x.y;
    fc_momentum_y.y = velocity.y * momentum.y + pressure;
    fc_momentum_y.z = velocity.y * momentum.z;
    fc_momentum_z.x = fc_momentum_x.z;
    fc_momentum_z.y = fc_momentum_y.z;
    fc_momentum_z.z = velocity.z * momentum.z + pressure;
    float de_p = density_energy + pressure;
    fc_density_energy.x = velocity.x * de_p;
    fc_density_energy.y = velocity.y * de_p;
    fc_density_energy.z = velocity.z * de_p;
}

// The variables of element e and what the flux needs of them (the suite repeats these lines for
// the element and for each neighbour).
__device__ inline void element_state(const float *variables, int nelr, int e, float &density, float3 &momentum,
                                     float &density_energy, float &speed_sqd, float &pressure, float &speed_of_sound,
                                     float3 &fc_momentum_x, float3 &fc_momentum_y, float3 &fc_momentum_z,
                                     float3 &fc_density_energy) {
    density = variables[e + VAR_DENSITY * nelr];
    momentum.x = variables[e + (VAR_MOMENTUM + 0) * nelr];
    momentum.y = variables[e + (VAR_MOMENTUM + 1) * nelr];
    momentum.z = variables[e + (VAR_MOMENTUM + 2) * nelr];
    density_energy = variables[e + VAR_DENSITY_ENERGY * nelr];
    float3 velocity;
    compute_velocity(density, momentum, velocity);
    speed_sqd = compute_speed_sqd(velocity);
    pressure = compute_pressure(density, density_energy, speed_sqd);
    speed_of_sound = compute_speed_of_sound(density, pressure);
    compute_flux_contribution(density, momentum, density_energy, pressure, velocity, fc_momentum_x, fc_momentum_y,
                              fc_momentum_z, fc_density_energy);
}

// The cell-centred flux through the face's normal component c (Rodinia writes it out for x, y, z).
#define CELL_CENTERED(c)                                                                         \
    factor = 0.5f * normal.c;                                                                    \
    flux_i_density += factor * (momentum_nb.c + momentum_i.c);                                   \
    flux_i_density_energy += factor * (fc_nb_density_energy.c + fc_i_density_energy.c);         \
    flux_i_momentum.x += factor * (fc_nb_momentum_x.c + fc_i_momentum_x.c);                      \
    flux_i_momentum.y += factor * (fc_nb_momentum_y.c + fc_i_momentum_y.c);                      \
    flux_i_momentum.z += factor * (fc_nb_momentum_z.c + fc_i_momentum_z.c)

extern "C" __global__ void rodinia_cfd(int nelr, const int *elements_surrounding_elements, const float *normals,
                                       const float *variables, float *fluxes) {
    const float smoothing_coefficient = 0.2f;
    const int i = blockDim.x * blockIdx.x + threadIdx.x;
    float density_i, density_energy_i, speed_sqd_i, pressure_i, speed_of_sound_i;
    float3 momentum_i, fc_i_momentum_x, fc_i_momentum_y, fc_i_momentum_z, fc_i_density_energy;
    element_state(variables, nelr, i, density_i, momentum_i, density_energy_i, speed_sqd_i, pressure_i,
                  speed_of_sound_i, fc_i_momentum_x, fc_i_momentum_y, fc_i_momentum_z, fc_i_density_energy);
    float speed_i = sqrtf(speed_sqd_i);
    float flux_i_density = 0.0f;
    float3 flux_i_momentum = make_float3(0.0f, 0.0f, 0.0f);
    float flux_i_density_energy = 0.0f;
    for (int j = 0; j < NNB; j++) {
        int nb = elements_surrounding_elements[i + j * nelr];
        float3 normal;
        normal.x = normals[i + (j + 0 * NNB) * nelr];
        normal.y = normals[i + (j + 1 * NNB) * nelr];
        normal.z = normals[i + (j + 2 * NNB) * nelr];
        float normal_len = sqrtf(normal.x * normal.x + normal.y * normal.y + normal.z * normal.z);
        if (nb >= 0) {
            float density_nb, density_energy_nb, speed_sqd_nb, pressure_nb, speed_of_sound_nb;
            float3 momentum_nb, fc_nb_momentum_x, fc_nb_momentum_y, fc_nb_momentum_z, fc_nb_density_energy;
            element_state(variables, nelr, nb, density_nb, momentum_nb, density_energy_nb, speed_sqd_nb, pressure_nb,
                          speed_of_sound_nb, fc_nb_momentum_x, fc_nb_momentum_y, fc_nb_momentum_z,
                          fc_nb_density_energy);
            // artificial viscosity
            float factor = -normal_len * smoothing_coefficient * 0.5f *
                           (speed_i + sqrtf(speed_sqd_nb) + speed_of_sound_i + speed_of_sound_nb);
            flux_i_density += factor * (density_i - density_nb);
            flux_i_density_energy += factor * (density_energy_i - density_energy_nb);
            flux_i_momentum.x += factor * (momentum_i.x - momentum_nb.x);
            flux_i_momentum.y += factor * (momentum_i.y - momentum_nb.y);
            flux_i_momentum.z += factor * (momentum_i.z - momentum_nb.z);
            // accumulate cell-centered fluxes
            CELL_CENTERED(x);
            CELL_CENTERED(y);
            CELL_CENTERED(z);
        } else if (nb == -1) {
            // a wing boundary
            flux_i_momentum.x += normal.x * pressure_i;
            flux_i_momentum.y += normal.y * pressure_i;
            flux_i_momentum.z += normal.z * pressure_i;
        }
    }
    fluxes[i + VAR_DENSITY * nelr] = flux_i_density;
    fluxes[i + (VAR_MOMENTUM + 0) * nelr] = flux_i_momentum.x;
    fluxes[i + (VAR_MOMENTUM + 1) * nelr] = flux_i_momentum.y;
    fluxes[i + (VAR_MOMENTUM + 2) * nelr] = flux_i_momentum.z;
    fluxes[i + VAR_DENSITY_ENERGY * nelr] = flux_i_density_energy;
}

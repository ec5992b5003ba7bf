package net.fips.control.ctl;

import java.util.Objects;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;

/**
 * Link-layer measurement metrics of a peer ({@code show_peers[].mmp}). The optional keys ({@code srtt_ms},
 * {@code smoothed_loss}, {@code smoothed_etx}, {@code lqi}) are left out while there is no measurement; the keys the
 * reference always carries ({@code loss_rate}, {@code etx}, {@code goodput_bps}, the delivery ratios) are present
 * and null while the node does not measure them.
 *
 * @param mode                 {@code full}, {@code lightweight} or {@code minimal}
 * @param srttMs               smoothed RTT in ms, or null before the first sample
 * @param lossRate             loss rate 0..1, or null when not measured
 * @param etx                  expected transmission count, or null when not measured
 * @param goodputBps           goodput in bytes per second, or null when not measured
 * @param deliveryRatioForward forward delivery ratio, or null when not measured
 * @param deliveryRatioReverse reverse delivery ratio, or null when not measured
 * @param smoothedLoss         smoothed loss, or null
 * @param smoothedEtx          smoothed ETX, or null
 * @param lqi                  link quality index {@code smoothed_etx * (1 + srtt_ms / 100)}, or null
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonPropertyOrder({"mode", "srtt_ms", "loss_rate", "etx", "goodput_bps", "delivery_ratio_forward",
        "delivery_ratio_reverse", "smoothed_loss", "smoothed_etx", "lqi"})
public record LinkMmp(
        @JsonProperty("mode") String mode,
        @JsonProperty("srtt_ms") Double srttMs,
        @JsonInclude(JsonInclude.Include.ALWAYS) @JsonProperty("loss_rate") Double lossRate,
        @JsonInclude(JsonInclude.Include.ALWAYS) @JsonProperty("etx") Double etx,
        @JsonInclude(JsonInclude.Include.ALWAYS) @JsonProperty("goodput_bps") Double goodputBps,
        @JsonInclude(JsonInclude.Include.ALWAYS) @JsonProperty("delivery_ratio_forward") Double deliveryRatioForward,
        @JsonInclude(JsonInclude.Include.ALWAYS) @JsonProperty("delivery_ratio_reverse") Double deliveryRatioReverse,
        @JsonProperty("smoothed_loss") Double smoothedLoss,
        @JsonProperty("smoothed_etx") Double smoothedEtx,
        @JsonProperty("lqi") Double lqi) {

    /** Checks the mode. */
    public LinkMmp {
        Objects.requireNonNull(mode, "mode");
    }

    /**
     * Builds the metrics, deriving {@code lqi} from smoothed ETX and SRTT when both are known, as the reference.
     *
     * @param mode                 MMP mode name
     * @param srttMs               smoothed RTT or null
     * @param lossRate             loss rate
     * @param etx                  ETX
     * @param goodputBps           goodput
     * @param deliveryRatioForward forward delivery ratio
     * @param deliveryRatioReverse reverse delivery ratio
     * @param smoothedLoss         smoothed loss or null
     * @param smoothedEtx          smoothed ETX or null
     * @return the metrics
     */
    public static LinkMmp of(final String mode, final Double srttMs, final Double lossRate, final Double etx,
                             final Double goodputBps, final Double deliveryRatioForward,
                             final Double deliveryRatioReverse, final Double smoothedLoss,
                             final Double smoothedEtx) {
        final Double lqi = srttMs != null && smoothedEtx != null ? smoothedEtx * (1.0 + srttMs / 100.0) : null;
        return new LinkMmp(mode, srttMs, lossRate, etx, goodputBps, deliveryRatioForward, deliveryRatioReverse,
                smoothedLoss, smoothedEtx, lqi);
    }
}

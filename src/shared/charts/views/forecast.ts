import { buildForecastOption } from '../forecast'
import { always, defineView } from './view'

/** The forecasting window: series above, attention heatmap below (the CLI draws it with `forecast --out`). */
export const forecast = defineView({
  id: 'forecast',
  names: { en: 'Forecast', zh: '预测' },
  needs: ['forecast'],
  export: { colormap: always },
  figure: ({ forecast, step }, spec, frame) =>
    buildForecastOption({ result: forecast, width: spec.width, selectedStep: step, colormap: spec.colormap, colorScale: spec.legend, frame }),
})

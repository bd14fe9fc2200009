import { Type } from 'typebox'

export const WeatherInput = Type.Object({
  latitude: Type.Number({ minimum: -90, maximum: 90, description: 'Latitude in decimal degrees, -90 to 90.' }),
  longitude: Type.Number({ minimum: -180, maximum: 180, description: 'Longitude in decimal degrees, -180 to 180.' })
}, { description: 'Where to read the weather.', examples: [{ latitude: 52.52, longitude: 13.41 }] })

export const WeatherOutput = Type.Object({
  temperature: Type.Number({ description: 'Air temperature 2 m above ground, in degrees Celsius.' }),
  condition: Type.String({ description: 'Sky and precipitation, from the WMO weather code (for example "partly cloudy").' }),
  humidity: Type.Optional(Type.Number({ minimum: 0, maximum: 100, description: 'Relative humidity 2 m above ground, in percent.' }))
}, { description: 'Current conditions at the location.' })
